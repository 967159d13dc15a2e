# SPDX-License-Identifier: BSD-3-Clause
# A workload's figure (cf. the paper's Fig. 7a/7b): called by optinc-demo
# with dir, servers, mode, errors, wl and metric set; reads curve.csv,
# eval.csv, time.csv, bytes.csv.

set terminal pngcairo size 1400,1000 font ",11"
set output dir.'/demo.png'
set datafile separator ','
set key autotitle columnhead
set grid
name = wl eq 'resnet' ? 'ResNet-20 on Fashion-MNIST' : 'LLaMA-style decoder on kernel Documentation/ (bytes)'
set multiplot layout 2,2 title sprintf("%s, %d servers: OptINC (%s%s) vs DDP's gloo all-reduce", \
	name, servers, mode, errors > 0 ? sprintf(", %d table errors", errors) : "")

is(a) = strcol(2) eq a		# eval.csv: algo in column 2
c1(a) = strcol(1) eq a		# curve.csv: in column 1
col = metric eq 'test_acc' ? 8 : 7

set title 'Training loss per step (rank 0; thin: each step, thick: running mean)'
set xlabel 'step'
set ylabel 'cross-entropy'
set key top right
plot dir.'/curve.csv' using 2:(c1('optinc') ? $3 : NaN) with lines lw 0.5 lc 1 notitle, \
     '' using 2:(c1('gloo') ? $3 : NaN) with lines lw 0.5 lc 2 notitle, \
     '' using 2:(c1('optinc') ? $4 : NaN) with lines lw 2 lc 1 title 'OptINC', \
     '' using 2:(c1('gloo') ? $4 : NaN) with lines lw 2 lc 2 dt 2 title 'gloo'

set title metric eq 'test_acc' ? 'Test accuracy' : 'Validation loss (nats per byte)'
set ylabel metric eq 'test_acc' ? '%' : 'nats/byte'
if (metric eq 'test_acc') { set key bottom right } else { set key top right }
plot dir.'/eval.csv' using 5:(is('optinc') && ($5 > 0 || metric ne 'test_acc') ? column(col) : NaN) \
	with linespoints lw 2 lc 1 title 'OptINC', \
     '' using 5:(is('gloo') && ($5 > 0 || metric ne 'test_acc') ? column(col) : NaN) \
	with linespoints lw 2 lc 2 dt 2 title 'gloo'

set title 'Time per step (rank 0): communication = not hidden by backward'
set xlabel ''
set ylabel 'ms'
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.5
set yrange [0:*]
set key top left
plot dir.'/time.csv' using 2:xtic(1) title 'compute', '' using 3 title 'communication'

set title 'Bytes each server sent into the switch per step / gradient bytes'
set ylabel 'ratio'
set style histogram clustered gap 1
set yrange [0:2.4]
set key top right
ring = 2.0 * (servers - 1) / servers
plot dir.'/bytes.csv' using 2:xtic(1) title 'OptINC', '' using 3 title 'gloo', \
     ring with lines dt 3 lc rgb 'black' title sprintf('2(N-1)/N = %.3f', ring), \
     1.0 with lines dt 4 lc rgb 'gray40' title '1 x gradient'

unset multiplot
