********************|
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
----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8|
Test Pan down (SU)|
There should be a horizontal row of *'s above, on the top row.|
Push <RETURN>|
cursor=23,13
