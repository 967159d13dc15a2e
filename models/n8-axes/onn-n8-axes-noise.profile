onn-n8-axes-noise.onn: N = 8, B = 8, 8 layers: 389425 of 390625 points right (99.6928 %), worst margin +0.0001
wrong outputs by error (output - exact average):
  wrong PAM4 symbols (0 = least significant): 1200 0 0 0
  error  points
     -1  493
     +1  695
     +2  12
wrong points by exact average (16 values a bin, empty bins left out):
  exact average 0-15: 1184 wrong
  exact average 16-31: 7 wrong
  exact average 96-111: 2 wrong
  exact average 240-255: 7 wrong
accuracy under MZI phase noise (3 seeds each: 1..3):
  sigma/rad        mean           min           max
      0.0001     99.6852 %     99.6813 %     99.6874 %
noise profile at sigma 0.0001 rad (means over the seeds; rms over every point):
  layer  out x in   form         dW/W    outputs, alone  error/act, together
      1  64x4       dense     0.00065         0.01725          0.001031
      2  128x64     blocks   0.000783         0.01128          0.001807
      3  256x128    blocks    0.00111        0.006829          0.003587
      4  512x256    blocks    0.00159        0.002999          0.007869
      5  256x512    blocks     0.0016        0.002081            0.0138
      6  128x256    blocks    0.00113        0.001881           0.01643
      7  64x128     blocks   0.000798        0.002054           0.01374
      8  4x64       dense    0.000657        0.001228          0.009222
  together: outputs move by 0.02017 (rms; the slicer's half step is 0.5)
436.82 s
