12345678901234567890123456789012345678901234567890123456789012345678901234567890123|
456789012345678901234567890123456789012345678901|
  This is 132 column mode, light background.|
   This is 132 column mode, light background.|
    This is 132 column mode, light background.|
     This is 132 column mode, light background.|
      This is 132 column mode, light background.|
       This is 132 column mode, light background.|
        This is 132 column mode, light background.|
         This is 132 column mode, light background.|
          This is 132 column mode, light background.|
           This is 132 column mode, light background.|
            This is 132 column mode, light background.|
             This is 132 column mode, light background.|
              This is 132 column mode, light background.|
               This is 132 column mode, light background.|
                This is 132 column mode, light background.|
                 This is 132 column mode, light background.|
                  This is 132 column mode, light background.|
                   This is 132 column mode, light background.Push <RETURN>|
|
|
|
|
cursor=19,74
