(;FF[4]AP[shapemill:0.1.0]CA[UTF-8]GM[1]KM[7.5]RU[Chinese]SZ[5])
