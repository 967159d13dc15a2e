onn-n8-axes.onn: N = 8, B = 8, 8 layers: 390110 of 390625 points right (99.8682 %), worst margin +0.0000
wrong outputs by error (output - exact average):
  wrong PAM4 symbols (0 = least significant): 511 4 0 0
  error  points
     -4  4
     -1  288
     +1  223
wrong points by exact average (16 values a bin, empty bins left out):
  exact average 0-15: 504 wrong
  exact average 240-255: 11 wrong
accuracy under MZI phase noise (3 seeds each: 1..3):
  sigma/rad        mean           min           max
      0.0001     99.7984 %     99.7048 %     99.8541 %
noise profile at sigma 0.0001 rad (means over the seeds; rms over every point):
  layer  out x in   form         dW/W    outputs, alone  error/act, together
      1  64x4       dense     0.00065         0.02561          0.001122
      2  128x64     blocks    0.00078         0.01559          0.001745
      3  256x128    blocks    0.00113        0.006592          0.003038
      4  512x256    blocks     0.0016        0.004737          0.006528
      5  256x512    blocks    0.00159        0.003955            0.0112
      6  128x256    blocks    0.00113        0.004008           0.01395
      7  64x128     blocks   0.000794        0.002284           0.01803
      8  4x64       dense    0.000588        0.001516            0.0145
  together: outputs move by 0.03286 (rms; the slicer's half step is 0.5)
442.26 s
