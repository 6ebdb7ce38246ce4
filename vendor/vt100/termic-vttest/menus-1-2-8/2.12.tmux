This line should be at the top of the screen. Push <RETURN>|
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
|
|
Origin mode test. This line should be at the bottom of the screen.|
cursor=0,59
