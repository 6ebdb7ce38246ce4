Improved alternate screen (XFree86 xterm mode 1047)|
|
Test private setmode 1047 (to/from alternate screen)|
The next screen will be filled with E's down to the prompt.|
unless titeInhibit resource is set, or alternate-screen is disabled.|
|
|
|
|
|
|
|
|
|
|
|
|
|
|
|
|
Push <RETURN>|
|
|
cursor=21,13
