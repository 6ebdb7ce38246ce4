                   Graphic rendition test pattern:|
|
|
vanilla                                bold|
|
     underline                              bold underline|
|
blink                                  bold blink|
|
     underline blink                        bold underline blink|
|
negative                               bold negative|
|
     underline negative                     bold underline negative|
|
blink negative                         bold blink negative|
|
     underline blink negative               bold underline blink negative|
|
|
|
|
Dark background. Push <RETURN>|
|
cursor=22,30
