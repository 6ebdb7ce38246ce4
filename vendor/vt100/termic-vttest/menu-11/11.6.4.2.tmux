|
|
|
|
|
|
                 *********************************************|
                 * The screen background should be black,    *|
                 * with a box made of asterisks and this     *|
                 * caption, in white (actually gray - it     *|
                 * is not bold).  Only the asterisk box      *|
                 * should be in color.                       *|
                 *                                           *|
                 *                                           *|
                 *                                           *|
                 *                                           *|
                 *********************************************|
|
|
|
|
|
Push <RETURN>|
|
cursor=22,13
