Better alternate screen (XFree86 xterm mode 1049)|
|
Test private setmode 1049 (to/from alternate screen)|
The original screen should be restored except for this line.|
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
cursor save/restore failed, got "7;5R", expected "23;1R"|
|
cursor=21,13
