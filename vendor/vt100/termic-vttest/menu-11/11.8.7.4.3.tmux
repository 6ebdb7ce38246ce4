Improved alternate screen (XFree86 xterm mode 1047)|
|
Test private setmode 1047 (to/from alternate screen)|
The original screen should be restored except for this line.|
unless titeInhibit resource is set, or alternate-screen is disabled.|
|
|
|
cursor save/restore failed, got "15;7R", expected "9;7R"|
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
