|
|
|
|
|
|
                 *********************************************                 EEE|
                 * The screen background should be blue,     *                EEE|
                 * with a box made of asterisks and this     *               EEE|
                 * caption, in orange (non-bold yellow).     *              EEE|
                 * There should be no cells with the         *             EEE|
                 * default foreground or background.         *            EEE|
                 *                                           *           EEE|
                 *                                           *          EEE|
                 *                                           *         EEE|
                 *                                           *        EEE|
                 *********************************************       EEE|
|
|
|
|
|
Push <RETURN>|
|
cursor=22,13
