The cursor should be invisible|
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
|
|
cursor=1,13
