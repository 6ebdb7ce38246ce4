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
Jump scroll down region [12..13] size 2 Line 29|
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
cursor=11,13
