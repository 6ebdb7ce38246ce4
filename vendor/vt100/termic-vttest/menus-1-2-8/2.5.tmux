12345678901234567890123456789012345678901234567890123456789012345678901234567890123|
456789012345678901234567890123456789012345678901|
  This is 132 column mode, dark background.|
   This is 132 column mode, dark background.|
    This is 132 column mode, dark background.|
     This is 132 column mode, dark background.|
      This is 132 column mode, dark background.|
       This is 132 column mode, dark background.|
        This is 132 column mode, dark background.|
         This is 132 column mode, dark background.|
          This is 132 column mode, dark background.|
           This is 132 column mode, dark background.|
            This is 132 column mode, dark background.|
             This is 132 column mode, dark background.|
              This is 132 column mode, dark background.|
               This is 132 column mode, dark background.|
                This is 132 column mode, dark background.|
                 This is 132 column mode, dark background.|
                  This is 132 column mode, dark background.|
                   This is 132 column mode, dark background.Push <RETURN>|
|
|
|
|
cursor=19,73
