abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzab|
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
"abcd..." should be at top.|
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
cursor=12,13
