onn-n8-axes.onn: N = 8, B = 8, 8 layers: 390625 of 390625 points right (100.0000 %), worst margin +0.1133
wrong outputs by error (output - exact average):
  wrong PAM4 symbols (0 = least significant): 0 0 0 0
  error  points
  (none)
accuracy under MZI phase noise (3 seeds each: 1..3):
  sigma/rad        mean           min           max
      0.0001     99.9914 %     99.9854 %    100.0000 %
noise profile at sigma 0.0001 rad (means over the seeds; rms over every point):
  layer  out x in   form         dW/W    outputs, alone  error/act, together
      1  64x4       dense    0.000706         0.02654          0.001132
      2  128x64     blocks   0.000771         0.01649          0.002313
      3  256x128    blocks    0.00112        0.005845          0.004198
      4  512x256    blocks     0.0016        0.004084          0.007665
      5  256x512    blocks    0.00159        0.003053           0.01478
      6  128x256    blocks    0.00113        0.003451           0.01846
      7  64x128     blocks   0.000805        0.002073           0.02236
      8  4x64       dense    0.000708         0.00143           0.01589
  together: outputs move by 0.03517 (rms; the slicer's half step is 0.5)
