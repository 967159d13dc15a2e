onn-n8-axes.onn: N = 8, B = 8, 8 layers: 390625 of 390625 points right (100.0000 %), worst margin +0.1090
wrong outputs by error (output - exact average):
  wrong PAM4 symbols (0 = least significant): 0 0 0 0
  error  points
  (none)
accuracy under MZI phase noise (3 seeds each: 1..3):
  sigma/rad        mean           min           max     wrong (all) wrong (most)
      0.0001    100.0000 %    100.0000 %    100.0000 %             0            0
noise profile at sigma 0.0001 rad (means over the seeds; rms over every point):
  layer  out x in   form         dW/W    outputs, alone  error/act, together
      1  64x4       dense    0.000651         0.02494          0.001039
      2  128x64     blocks   0.000771         0.01475          0.001959
      3  256x128    blocks    0.00112        0.005992          0.003498
      4  512x256    blocks    0.00159        0.003871          0.006656
      5  256x512    blocks     0.0016        0.003684           0.01349
      6  128x256    blocks    0.00112         0.00304           0.01711
      7  64x128     blocks   0.000806        0.002182           0.02096
      8  4x64       dense    0.000646        0.001518            0.0146
  together: outputs move by 0.03235 (rms; the slicer's half step is 0.5)
