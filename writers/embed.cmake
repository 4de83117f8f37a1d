# Turns a text file into a C source defining `const char NAME[]` (its bytes, NUL-terminated).
# usage: cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed.cmake
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}.tmp" "/* generated from ${IN} by writers/embed.cmake: do not edit */\nconst char ${NAME}[] = {\n${bytes}0x00 };\n")
file(RENAME "${OUT}.tmp" "${OUT}")
