The cursor should be invisible|
Push <RETURN>|
The cursor should be visible again|
Push <RETURN>|
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
cursor=3,13
