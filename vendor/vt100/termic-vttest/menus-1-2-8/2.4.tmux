1234567890123456789012345678901234567890123456789012345678901234567890123456789|
|
  This is 80 column mode, light background.|
   This is 80 column mode, light background.|
    This is 80 column mode, light background.|
     This is 80 column mode, light background.|
      This is 80 column mode, light background.|
       This is 80 column mode, light background.|
        This is 80 column mode, light background.|
         This is 80 column mode, light background.|
          This is 80 column mode, light background.|
           This is 80 column mode, light background.|
            This is 80 column mode, light background.|
             This is 80 column mode, light background.|
              This is 80 column mode, light background.|
               This is 80 column mode, light background.|
                This is 80 column mode, light background.|
                 This is 80 column mode, light background.|
                  This is 80 column mode, light background.|
                   This is 80 column mode, light background.Push <RETURN>|
|
|
|
|
cursor=19,73
