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
********************|
----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8|
Test Pan up (SD)|
There should be a horizontal row of *'s above, just above the message.|
Push <RETURN>|
cursor=23,13
