a|
b|
c|
d|
e|
f|
g|
h|
i|
j|
k|
l|
m|
n|
o|
p|
q|
r|
s|
t|
----+----1----+----2----+----3----+----4----+----5----+----6----+----7----+----8|
If your terminal supports DCH, letters a-t are on column 1|
Push <RETURN>|
|
cursor=22,13
