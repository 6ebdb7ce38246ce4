|
|
|
|
|
**                 *|
**|
**|
**|
**|
**|
**|
**|
**|
**|
**|
**|
**                 **|
|
----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8|
Test Horizontal-Position-Relative (HPR)|
There should be a box-outline made of *'s in the middle of the screen.|
Push <RETURN>|
|
cursor=22,13
