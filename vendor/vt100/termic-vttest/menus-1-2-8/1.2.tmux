***********************************************************************************|
*+++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++*|
*+                                                                                *|
*+                                                                                *|
*+                                                                                *|
*+                                                                                *|
*+                                                                                *|
*+                                                                                *|
*+                                  EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE*|
*+                                  E|
                                    EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE*|
 The screen should be cleared,  and hader of *'s and +'s around the edge,   and exa|
ctly in the                           middle  there should be a frame of E's around|
 this  text                           with  one (1) free position around it.    Pus|
h <RETURN>                                                EEEEEEEEEEEEEEEEEEEEEEEE*|
                                                          EEEEEEEEEEEEEEEEEEEEEEEE*|
*+                                                                                *|
*+                                                                                *|
*+                                                                                *|
*+                                                                                *|
*+                                                                                *|
*+                                                                                *|
+++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++ *|
***********************************************************************************|
cursor=14,10
