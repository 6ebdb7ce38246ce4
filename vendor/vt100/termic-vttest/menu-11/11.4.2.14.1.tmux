1.|
2.|
3.|
4.|
5.|
6.|
7.|
8.|
9.|
10.|
11.|
12.|
13.|
14.|
15.|
16.|
17.|
18.|
19.|
20.|
Test Previous-Line (CPL)|
The lines above this should be numbered in sequence, from 1.|
Push <RETURN>|
|
cursor=22,13
