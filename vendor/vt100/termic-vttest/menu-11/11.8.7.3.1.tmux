Switch to/from alternate screen (xterm)|
|
Test private setmode 47 (to/from alternate screen)|
The next screen will be filled with E's down to the prompt.|
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
|
Push <RETURN>|
|
|
cursor=21,13
