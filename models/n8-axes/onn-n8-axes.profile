onn-n8-axes.onn: N = 8, B = 8, 8 layers: 390625 of 390625 points right (100.0000 %), worst margin +0.1139
wrong outputs by error (output - exact average):
  wrong PAM4 symbols (0 = least significant): 0 0 0 0
  error  points
  (none)
accuracy under MZI phase noise (3 seeds each: 1..3):
  sigma/rad        mean           min           max
      0.0001    100.0000 %    100.0000 %    100.0000 %
noise profile at sigma 0.0001 rad (means over the seeds; rms over every point):
  layer  out x in   form         dW/W    outputs, alone  error/act, together
      1  64x4       dense    0.000674         0.02343          0.001036
      2  128x64     blocks    0.00077         0.01435          0.001741
      3  256x128    blocks    0.00112        0.005811          0.003031
      4  512x256    blocks    0.00159        0.004168           0.00585
      5  256x512    blocks     0.0016        0.003411           0.01184
      6  128x256    blocks    0.00112        0.003097           0.01441
      7  64x128     blocks   0.000806        0.002198           0.01754
      8  4x64       dense    0.000637        0.001409           0.01204
  together: outputs move by 0.02666 (rms; the slicer's half step is 0.5)
