Test of leading zeros in ESC sequences.|
Two lines below you should see the sentence "This is a correct sentence".|
|
This is a correct sentence|
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
|
|
cursor=19,13
