# SPDX-License-Identifier: BSD-3-Clause
# The demo's figure (cf. the paper's Fig. 7a/7b): called by optinc-demo with
# dir, servers, mode and errors set; reads train.csv, time.csv, bytes.csv.

set terminal pngcairo size 1400,1000 font ",11"
set output dir.'/demo.png'
set datafile separator ','
set key autotitle columnhead
set grid
set multiplot layout 2,2 title sprintf("Fashion-MNIST MLP, %d servers: OptINC (%s%s) vs ring all-reduce", \
	servers, mode, errors > 0 ? sprintf(", %d table errors", errors) : "")

csv = dir.'/train.csv'
is(a) = strcol(2) eq a

# epoch 0 is the untrained model (10 %): left out so the curves are readable
set title 'Test accuracy after each epoch'
set xlabel 'epoch'
set xtics 1
set ylabel '%'
set key bottom right
plot csv using 1:(is('optinc') && $1 > 0 ? $9 : NaN) with linespoints lw 2 title 'OptINC', \
     csv using 1:(is('ring') && $1 > 0 ? $9 : NaN) with linespoints lw 2 dt 2 title 'ring'

set title 'Loss (epoch 0: the initial model)'
set ylabel 'cross-entropy'
set logscale y
set key top right
plot csv using 1:(is('optinc') ? $8 : NaN) with linespoints lw 2 lc 1 title 'OptINC test', \
     csv using 1:(is('optinc') ? $7 : NaN) with lines lw 1 lc 1 title 'OptINC train', \
     csv using 1:(is('ring') ? $8 : NaN) with linespoints lw 2 lc 2 dt 2 title 'ring test', \
     csv using 1:(is('ring') ? $7 : NaN) with lines lw 1 lc 2 dt 2 title 'ring train'

set title 'Time per step (rank 0)'
unset logscale y
set xlabel ''
set xtics autofreq
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
plot dir.'/bytes.csv' using 2:xtic(1) title 'OptINC', '' using 3 title 'ring', \
     ring with lines dt 3 lc rgb 'black' title sprintf('2(N-1)/N = %.3f', ring), \
     1.0 with lines dt 4 lc rgb 'gray40' title '1 x gradient'

unset multiplot
