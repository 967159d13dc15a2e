onn-n8-axes.onn: N = 8, B = 8, 8 layers: 388101 of 390625 points right (99.3539 %), worst margin +0.0005
wrong outputs by error (output - exact average):
  wrong PAM4 symbols (0 = least significant): 2524 6 0 0
  error  points
     -1  1390
     +1  1128
     +3  6
accuracy under MZI phase noise (3 seeds each: 1..3):
  sigma/rad        mean           min           max
      0.0001     99.3271 %     99.3178 %     99.3398 %
noise profile at sigma 0.0001 rad (means over the seeds; rms over every point):
  layer  out x in   form         dW/W    outputs, alone  error/act, together
      1  64x4       dense     0.00066         0.02469         0.0009866
      2  128x64     blocks    0.00078         0.01338          0.001893
      3  256x128    blocks    0.00113        0.005286          0.003298
      4  512x256    blocks    0.00161        0.004459          0.006779
      5  256x512    blocks     0.0016         0.00245            0.0124
      6  128x256    blocks    0.00113         0.00294           0.01481
      7  64x128     blocks   0.000789        0.002422           0.01847
      8  4x64       dense    0.000659        0.001408           0.01179
  together: outputs move by 0.02882 (rms; the slicer's half step is 0.5)
290.29 s
