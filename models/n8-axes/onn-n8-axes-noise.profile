onn-n8-axes-noise.onn: N = 8, B = 8, 8 layers: 388196 of 390625 points right (99.3782 %), worst margin +0.0017
wrong outputs by error (output - exact average):
  wrong PAM4 symbols (0 = least significant): 2417 24 0 0
  error  points
     -4  12
     -1  1296
     +1  1109
     +3  12
accuracy under MZI phase noise (3 seeds each: 1..3):
  sigma/rad        mean           min           max
      0.0001     99.3443 %     99.3362 %     99.3495 %
noise profile at sigma 0.0001 rad (means over the seeds; rms over every point):
  layer  out x in   form         dW/W    outputs, alone  error/act, together
      1  64x4       dense    0.000666         0.01609         0.0009696
      2  128x64     blocks   0.000787         0.01197          0.002227
      3  256x128    blocks    0.00112        0.007468          0.004464
      4  512x256    blocks     0.0016        0.002766          0.009674
      5  256x512    blocks     0.0016        0.001679           0.01672
      6  128x256    blocks    0.00112        0.001522           0.02075
      7  64x128     blocks   0.000791        0.001608           0.01638
      8  4x64       dense    0.000629        0.001334           0.01156
  together: outputs move by 0.02494 (rms; the slicer's half step is 0.5)
283.46 s
