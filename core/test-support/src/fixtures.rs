//! Tiny exports written by hand for the tests (not real captures).

/// Variant D (20 columns): noise before the header, ragged metric rows, a rule row with an
/// embedded newline and doubled quotes, thousands separators, scaled units, `n/a`.
pub const SMALL_DETAILS: &str = concat!(
    "result = 42\n",
    "==PROF== Connected to process 7 (/usr/bin/python3.12)\n",
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\",\"Rule Type\",\"Rule Description\",\"Estimated Speedup Type\",\"Estimated Speedup\"\n",
    "\"0\",\"7\",\"python3.12\",\"127.0.0.1\",\"void ns::gemm<float, 2>(T1, int)\",\"1\",\"7\",\"(128, 2, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"GPU Speed Of Light Throughput\",\"Duration\",\"us\",\"6.75\",\n",
    "\"0\",\"7\",\"python3.12\",\"127.0.0.1\",\"void ns::gemm<float, 2>(T1, int)\",\"1\",\"7\",\"(128, 2, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"GPU Speed Of Light Throughput\",\"Memory Throughput\",\"%\",\"19.66\",\n",
    "\"0\",\"7\",\"python3.12\",\"127.0.0.1\",\"void ns::gemm<float, 2>(T1, int)\",\"1\",\"7\",\"(128, 2, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"Memory Workload Analysis\",\"Memory Throughput\",\"Gbyte/s\",\"1.50\",\n",
    "\"0\",\"7\",\"python3.12\",\"127.0.0.1\",\"void ns::gemm<float, 2>(T1, int)\",\"1\",\"7\",\"(128, 2, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"Launch Statistics\",\"Registers Per Thread\",\"register/thread\",\"168\",\n",
    "\"0\",\"7\",\"python3.12\",\"127.0.0.1\",\"void ns::gemm<float, 2>(T1, int)\",\"1\",\"7\",\"(128, 2, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"Launch Statistics\",\"Shared Memory Configuration Size\",\"Kbyte\",\"32.77\",\n",
    "\"0\",\"7\",\"python3.12\",\"127.0.0.1\",\"void ns::gemm<float, 2>(T1, int)\",\"1\",\"7\",\"(128, 2, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"Launch Statistics\",\"Function Cache Configuration\",\"\",\"CachePreferNone\",\n",
    "\"0\",\"7\",\"python3.12\",\"127.0.0.1\",\"void ns::gemm<float, 2>(T1, int)\",\"1\",\"7\",\"(128, 2, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"Occupancy\",\"Theoretical Occupancy\",\"%\",\"62.50\",\n",
    "\"0\",\"7\",\"python3.12\",\"127.0.0.1\",\"void ns::gemm<float, 2>(T1, int)\",\"1\",\"7\",\"(128, 2, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"flop_count_sp.sum\",\"\",\"n/a\",\n",
    "\"0\",\"7\",\"python3.12\",\"127.0.0.1\",\"void ns::gemm<float, 2>(T1, int)\",\"1\",\"7\",\"(128, 2, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"dram__bytes_read.sum\",\"byte\",\"1,048,576\",\n",
    "\"0\",\"7\",\"python3.12\",\"127.0.0.1\",\"void ns::gemm<float, 2>(T1, int)\",\"1\",\"7\",\"(128, 2, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"Occupancy\",\"\",\"\",\"\",\"TheoreticalOccupancy\",\"OPT\",\"See the \"\"Occupancy\"\" section,\nthen tune.\",\"local\",\"37.5\"\n",
    "\"1\",\"7\",\"python3.12\",\"127.0.0.1\",\"copy(float *)\",\"1\",\"7\",\"(256, 1, 1)\",\"(4, 1, 1)\",\"0\",\"9.0\",\"GPU Speed Of Light Throughput\",\"Duration\",\"ns\",\"1,920\",\n",
    "\"1\",\"7\",\"python3.12\",\"127.0.0.1\",\"copy(float *)\",\"1\",\"7\",\"(256, 1, 1)\",\"(4, 1, 1)\",\"0\",\"9.0\",\"Launch Statistics\",\"Registers Per Thread\",\"register/thread\",\"16\",\n",
    "\"1\",\"7\",\"python3.12\",\"127.0.0.1\",\"copy(float *)\",\"1\",\"7\",\"(256, 1, 1)\",\"(4, 1, 1)\",\"0\",\"9.0\",\"Launch Statistics\",\"Function Cache Configuration\",\"\",\"CachePreferNone\",\n",
    "==PROF== Disconnected from process 7\n",
);
