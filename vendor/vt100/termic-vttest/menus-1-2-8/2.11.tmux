|
Origin mode test. This line should be at the bottom of the screen.|
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
|
|
|
This line should be the one above the bottom of the screen. Push <RETURN>|
|
cursor=22,73
