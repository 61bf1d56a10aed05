set terminal pngcairo size 900,600 font 'Sans,11'
set grid
set logscale x 2
set key outside right
set xlabel 'n (m = n = k)'
set output 'docs/figures/fig6_speedup_fp32.png'
set title 'fp32x6 speedup over host SGEMM (Fig. 6)'
set ylabel 'speedup (host SGEMM time / bf16x time)'
plot 'docs/figures/fp32x6_t1.dat' using 1:2 with linespoints lw 2 pt 7 dt 1 lc 1 title 'fp32x6 t=1', \
     'docs/figures/fp32x6_t2.dat' using 1:2 with linespoints lw 2 pt 7 dt 2 lc 1 title 'fp32x6 t=2'
set output 'docs/figures/fig7_speedup_fp64.png'
set title 'fp64 modes: speedup over host DGEMM (Fig. 7)'
set ylabel 'speedup (host DGEMM time / bf16x time)'
plot 'docs/figures/fp64x6_t1.dat' using 1:2 with linespoints lw 2 pt 7 dt 1 lc 1 title 'fp64x6 t=1', \
     'docs/figures/fp64x6_t2.dat' using 1:2 with linespoints lw 2 pt 7 dt 2 lc 1 title 'fp64x6 t=2', \
     'docs/figures/fp64x10_t1.dat' using 1:2 with linespoints lw 2 pt 5 dt 1 lc 2 title 'fp64x10 t=1', \
     'docs/figures/fp64x10_t2.dat' using 1:2 with linespoints lw 2 pt 5 dt 2 lc 2 title 'fp64x10 t=2', \
     'docs/figures/fp64x15_t1.dat' using 1:2 with linespoints lw 2 pt 9 dt 1 lc 3 title 'fp64x15 t=1', \
     'docs/figures/fp64x15_t2.dat' using 1:2 with linespoints lw 2 pt 9 dt 2 lc 3 title 'fp64x15 t=2', \
     'docs/figures/fp64x21_t1.dat' using 1:2 with linespoints lw 2 pt 11 dt 1 lc 4 title 'fp64x21 t=1', \
     'docs/figures/fp64x21_t2.dat' using 1:2 with linespoints lw 2 pt 11 dt 2 lc 4 title 'fp64x21 t=2'
set output 'docs/figures/fig9_overhead.png'
set title 'Overhead ratio T(mode) / (products x T(raw BF16 GEMM)) (Fig. 9)'
set ylabel 'overhead ratio'
plot 'docs/figures/fp32x6_t1.dat' using 1:3 with linespoints lw 2 pt 7 dt 1 lc 1 title 'fp32x6 t=1', \
     'docs/figures/fp32x6_t2.dat' using 1:3 with linespoints lw 2 pt 7 dt 2 lc 1 title 'fp32x6 t=2', \
     'docs/figures/fp64x6_t1.dat' using 1:3 with linespoints lw 2 pt 5 dt 1 lc 2 title 'fp64x6 t=1', \
     'docs/figures/fp64x6_t2.dat' using 1:3 with linespoints lw 2 pt 5 dt 2 lc 2 title 'fp64x6 t=2', \
     'docs/figures/fp64x10_t1.dat' using 1:3 with linespoints lw 2 pt 9 dt 1 lc 3 title 'fp64x10 t=1', \
     'docs/figures/fp64x10_t2.dat' using 1:3 with linespoints lw 2 pt 9 dt 2 lc 3 title 'fp64x10 t=2', \
     'docs/figures/fp64x15_t1.dat' using 1:3 with linespoints lw 2 pt 11 dt 1 lc 4 title 'fp64x15 t=1', \
     'docs/figures/fp64x15_t2.dat' using 1:3 with linespoints lw 2 pt 11 dt 2 lc 4 title 'fp64x15 t=2', \
     'docs/figures/fp64x21_t1.dat' using 1:3 with linespoints lw 2 pt 13 dt 1 lc 5 title 'fp64x21 t=1', \
     'docs/figures/fp64x21_t2.dat' using 1:3 with linespoints lw 2 pt 13 dt 2 lc 5 title 'fp64x21 t=2', 1 with lines lc 'black' dt 3 title 'ideal'
unset logscale x
set output 'docs/figures/fig10_breakdown.png'
set terminal pngcairo size 1200,600 font 'Sans,10'
set title 'Split+pack vs compute share of bf16x time (Fig. 10)'
set ylabel 'fraction of time'
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.75
set yrange [0:1]
set xtics rotate by -60 font ',8'
unset xlabel
plot 'docs/figures/breakdown.dat' using 2:xtic(1) title 'split + pack', '' using 3 title 'compute'
