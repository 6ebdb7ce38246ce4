***********************************************************************************|
*****************************************************************************|
***********************************************************************************|
|
This should be three identical lines of *'s completely filling|
the top of the screen without any empty lines between.|
(Test of WRAP AROUND mode setting.)|
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
cursor=7,13
