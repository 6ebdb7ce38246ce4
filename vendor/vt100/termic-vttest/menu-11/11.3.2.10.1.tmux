uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu  r|
l                                                                              *  r|
l                                                                              *  r|
l                                                                              *  r|
l                                                                              *  r|
l                                                                              *  r|
l                                                                              *  r|
l                                                                              *  r|
l                                                                              *  r|
l                                                                              *  r|
l                                                                              *  r|
Test other movement (CR/HT/LF/FF) within margins                               *  r|
A box of *'s was written on screen border, overwritten using margins (u/d/l/r) *  r|
Push <RETURN>                                                                  *  r|
l                                                                              *  r|
l                                                                              *  r|
l                                                                              *  r|
l                                                                              *  r|
l                                                                              *  r|
l                                                                              *  r|
l                                                                              *  r|
l                                                                              *  r|
l                                                                              *  r|
dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd  r|
cursor=13,13
