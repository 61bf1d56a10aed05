# bf16x bench figures (bf16x 0.1.0); the data files beside this script hold the plotted columns.
set terminal pngcairo size 1000,650 font 'Sans,11'
set grid
set key outside right
set datafile missing '-'
set autoscale yfix
set offsets graph 0, graph 0, graph 0.05, graph 0.05
set xlabel 'n (m = n = k)'
caption = 'CPU: Intel(R) Xeon(R) Processor; engine avx512bf16; threads 1,2'."\n".'bf16x version not recorded (plotted by bf16x 0.1.0); host BLAS libopenblas.so.0 (kernel SkylakeX)'
set output 'fig6_speedup_fp32.png'
set title 'fp32 modes: speedup over host SGEMM (Fig. 6)'."\n".caption noenhanced
set logscale x 2
set logscale y
set ylabel 'speedup (host SGEMM time / bf16x time)'
plot 'fp32x6_t1.dat' using 1:2 with linespoints lw 2 pt 7 dt 1 lc 1 title 'fp32x6 t=1', \
     'fp32x6_t2.dat' using 1:2 with linespoints lw 2 pt 7 dt 2 lc 1 title 'fp32x6 t=2', \
     1 with lines lc 'black' dt 2 lw 2 title 'host BLAS = 1 (break-even)'
set output 'fig7_speedup_fp64.png'
set title 'fp64 modes: speedup over host DGEMM (Fig. 7)'."\n".caption noenhanced
set logscale x 2
set logscale y
set ylabel 'speedup (host DGEMM time / bf16x time)'
plot 'fp64x6_t1.dat' using 1:2 with linespoints lw 2 pt 5 dt 1 lc 2 title 'fp64x6 t=1', \
     'fp64x6_t2.dat' using 1:2 with linespoints lw 2 pt 5 dt 2 lc 2 title 'fp64x6 t=2', \
     'fp64x10_t1.dat' using 1:2 with linespoints lw 2 pt 9 dt 1 lc 3 title 'fp64x10 t=1', \
     'fp64x10_t2.dat' using 1:2 with linespoints lw 2 pt 9 dt 2 lc 3 title 'fp64x10 t=2', \
     'fp64x15_t1.dat' using 1:2 with linespoints lw 2 pt 11 dt 1 lc 4 title 'fp64x15 t=1', \
     'fp64x15_t2.dat' using 1:2 with linespoints lw 2 pt 11 dt 2 lc 4 title 'fp64x15 t=2', \
     'fp64x21_t1.dat' using 1:2 with linespoints lw 2 pt 13 dt 1 lc 5 title 'fp64x21 t=1', \
     'fp64x21_t2.dat' using 1:2 with linespoints lw 2 pt 13 dt 2 lc 5 title 'fp64x21 t=2', \
     1 with lines lc 'black' dt 2 lw 2 title 'host BLAS = 1 (break-even)'
set output 'time.png'
set title 'Time per GEMM (median of the timed runs)'."\n".caption noenhanced
set logscale x 2
set logscale y
set ylabel 'time (ms)'
plot 'fp32x6_t1.dat' using 1:6 with linespoints lw 2 pt 7 dt 1 lc 1 title 'fp32x6 t=1', \
     'fp32x6_t2.dat' using 1:6 with linespoints lw 2 pt 7 dt 2 lc 1 title 'fp32x6 t=2', \
     'fp64x6_t1.dat' using 1:6 with linespoints lw 2 pt 5 dt 1 lc 2 title 'fp64x6 t=1', \
     'fp64x6_t2.dat' using 1:6 with linespoints lw 2 pt 5 dt 2 lc 2 title 'fp64x6 t=2', \
     'fp64x10_t1.dat' using 1:6 with linespoints lw 2 pt 9 dt 1 lc 3 title 'fp64x10 t=1', \
     'fp64x10_t2.dat' using 1:6 with linespoints lw 2 pt 9 dt 2 lc 3 title 'fp64x10 t=2', \
     'fp64x15_t1.dat' using 1:6 with linespoints lw 2 pt 11 dt 1 lc 4 title 'fp64x15 t=1', \
     'fp64x15_t2.dat' using 1:6 with linespoints lw 2 pt 11 dt 2 lc 4 title 'fp64x15 t=2', \
     'fp64x21_t1.dat' using 1:6 with linespoints lw 2 pt 13 dt 1 lc 5 title 'fp64x21 t=1', \
     'fp64x21_t2.dat' using 1:6 with linespoints lw 2 pt 13 dt 2 lc 5 title 'fp64x21 t=2', \
     'host_SGEMM_t1.dat' using 1:6 with linespoints lw 2 pt 3 dt 1 lc 6 title 'host SGEMM t=1', \
     'host_SGEMM_t2.dat' using 1:6 with linespoints lw 2 pt 3 dt 2 lc 6 title 'host SGEMM t=2', \
     'host_DGEMM_t1.dat' using 1:6 with linespoints lw 2 pt 7 dt 1 lc 7 title 'host DGEMM t=1', \
     'host_DGEMM_t2.dat' using 1:6 with linespoints lw 2 pt 7 dt 2 lc 7 title 'host DGEMM t=2', \
     'raw_BF16_GEMM_t1.dat' using 1:6 with linespoints lw 2 pt 5 dt 1 lc 8 title 'raw BF16 GEMM t=1', \
     'raw_BF16_GEMM_t2.dat' using 1:6 with linespoints lw 2 pt 5 dt 2 lc 8 title 'raw BF16 GEMM t=2'
set output 'fig9_overhead.png'
set title 'Overhead ratio T(mode) / (products x T(raw BF16 GEMM)) (Fig. 9)'."\n".caption noenhanced
set logscale x 2
unset logscale y
set ylabel 'overhead ratio'
plot 'fp32x6_t1.dat' using 1:3 with linespoints lw 2 pt 7 dt 1 lc 1 title 'fp32x6 t=1', \
     'fp32x6_t2.dat' using 1:3 with linespoints lw 2 pt 7 dt 2 lc 1 title 'fp32x6 t=2', \
     'fp64x6_t1.dat' using 1:3 with linespoints lw 2 pt 5 dt 1 lc 2 title 'fp64x6 t=1', \
     'fp64x6_t2.dat' using 1:3 with linespoints lw 2 pt 5 dt 2 lc 2 title 'fp64x6 t=2', \
     'fp64x10_t1.dat' using 1:3 with linespoints lw 2 pt 9 dt 1 lc 3 title 'fp64x10 t=1', \
     'fp64x10_t2.dat' using 1:3 with linespoints lw 2 pt 9 dt 2 lc 3 title 'fp64x10 t=2', \
     'fp64x15_t1.dat' using 1:3 with linespoints lw 2 pt 11 dt 1 lc 4 title 'fp64x15 t=1', \
     'fp64x15_t2.dat' using 1:3 with linespoints lw 2 pt 11 dt 2 lc 4 title 'fp64x15 t=2', \
     'fp64x21_t1.dat' using 1:3 with linespoints lw 2 pt 13 dt 1 lc 5 title 'fp64x21 t=1', \
     'fp64x21_t2.dat' using 1:3 with linespoints lw 2 pt 13 dt 2 lc 5 title 'fp64x21 t=2', \
     1 with lines lc 'black' dt 3 lw 2 title 'ideal = 1'
set output 'fig10_breakdown.png'
set terminal pngcairo size 1200,650 font 'Sans,10'
set title 'Split+pack vs compute share of bf16x time (Fig. 10)'."\n".caption noenhanced
unset logscale x
unset logscale y
set offsets 0, 0, 0, 0
set ylabel 'fraction of time'
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.75
set yrange [0:1]
set xtics rotate by -60 font ',8'
unset xlabel
plot 'breakdown.dat' using 2:xtic(1) title 'split + pack', '' using 3 title 'compute'
