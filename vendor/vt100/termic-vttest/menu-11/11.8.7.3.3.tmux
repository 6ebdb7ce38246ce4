Switch to/from alternate screen (xterm)|
|
Test private setmode 47 (to/from alternate screen)|
The original screen should be restored except for this line.|
|
|
cursor save/restore failed, got "15;7R", expected "7;5R"|
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
