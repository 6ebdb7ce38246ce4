      *     *     *     *     *     *     *     *     *     *     *     *     *|
      *     *     *     *     *     *     *     *     *     *     *     *     *|
|
Test of TAB setting/resetting. These two lines|
should look the same. Push <RETURN>|
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
cursor=4,35
