                   *|
                    *|
                     *|
                      *|
                       *|
                        *|
                         *|
                          *|
                           *|
                            *|
                             *|
                              *|
                               *|
                                *|
                                 *|
                                  *|
                                   *|
                                    *|
                                     *|
                                      *|
----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8|
Test Scroll-Right (SR)|
There should be a vertical column of *'s centered above.|
Push <RETURN>|
cursor=23,13
