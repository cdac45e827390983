-- Synthetic Nsight Systems SQLite exports for src/sources/trace/nsys_reader_test.cc (no binary is
-- checked in: the test builds each .sqlite from this text with the sqlite3 C API).
-- Exports, each starting at a "-- @@export NAME" line:
--   current: the nsys 2024.x schema (column sets as `nsys export --type sqlite` writes them, cut
--            to the columns of interest plus a few neighbours), ENUM_ tables, SYNCHRONIZATION,
--            MEMSET, MPI_RANKS, NVTX with registered strings (textId).
--   older:   an nsys 2020-era shape: kernel names only in shortName, no graphNodeId, no MEMSET,
--            SYNCHRONIZATION, ENUM_ or MPI_RANKS tables, NVTX without textId.
--   multigpu: two ranks (processes) of one `nsys profile torchrun` export, one GPU each.
--   graphs:  --cuda-graph-trace=graph: CUPTI_ACTIVITY_KIND_GRAPH_TRACE instead of kernels.
--   steps:   20 ProfilerStep ranges of 4 ms, a host-bound training loop (a real verdict).
--   nocuda:  runtime calls only, and the DIAGNOSTIC_EVENT nsys writes when CUPTI collected no
--            CUDA events: the GPU side was not captured (not a CPU-only process).
-- Times are ns. globalTid = (pid << 24) | tid, pid 4242, threads 4242 (main) and 4250 (worker).
-- To build one by hand: awk '/^-- @@export older/{p=1;next} /^-- @@export/{p=0} p' \
--   make_synthetic.sql | sqlite3 older.sqlite

-- @@export current
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES
  (1, 'cudaLaunchKernel_v7000'),
  (2, 'cudaGraphLaunch_v10000'),
  (3, 'cudaMemcpyAsync_v3020'),
  (4, 'cudaMemcpy_v3020'),
  (5, 'cudaMemsetAsync_v3020'),
  (6, 'cudaStreamSynchronize_v3020'),
  (7, 'cudaDeviceSynchronize_v3020'),
  (8, 'cudaEventSynchronize_v3020'),
  (9, 'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char *, 1>>(int, at::native::FillFunctor<float>, at::detail::Array<char *, 1>)'),
  (10, 'vectorized_elementwise_kernel'),
  (11, '_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_'),
  (12, 'ampere_sgemm_128x64_tn'),
  (13, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm *, unsigned long, ncclWork *)'),
  (14, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'),
  (15, 'ProfilerStep#0'),
  (16, 'python3'),
  (17, 'cudaStreamIsCapturing_v10000');

CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
INSERT INTO ThreadNames VALUES (16, 0, (4242 << 24) | 4242);

CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', '2024.6.2.225'),
  ('EXPORT_SCHEMA_VERSION', '3.16.1');

CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,
  busLocation TEXT, totalMemory INTEGER, smCount INTEGER, cuDevice INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA H100 80GB HBM3', '0000:3b:00.0', 85520809984,
  132, 0);

CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES
  (0, 'CUDA_MEMCPY_KIND_UNKNOWN', 'Unknown'), (1, 'CUDA_MEMCPY_KIND_HTOD', 'Host-to-Device'),
  (2, 'CUDA_MEMCPY_KIND_DTOH', 'Device-to-Host'), (8, 'CUDA_MEMCPY_KIND_DTOD', 'Device-to-Device'),
  (9, 'CUDA_MEMCPY_KIND_HTOH', 'Host-to-Host'), (10, 'CUDA_MEMCPY_KIND_PTOP', 'Peer-to-Peer');
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEM_KIND VALUES
  (0, 'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE', 'Pageable'),
  (1, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned'),
  (2, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', 'Device'),
  (3, 'CUDA_MEMOPR_MEMORY_KIND_ARRAY', 'Array'),
  (4, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED', 'Managed'),
  (7, 'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN', 'Unknown');
CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES
  (0, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN', 'Unknown'),
  (1, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE', 'Event sync'),
  (2, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT', 'Stream wait sync'),
  (3, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE', 'Stream sync'),
  (4, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE', 'Context sync');
CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (34, 'NvtxMark', 'NvtxMark'),
  (59, 'NvtxPushPopRange', 'NvtxPushPopRange'), (60, 'NvtxStartEndRange', 'NvtxStartEndRange'),
  (75, 'NvtxDomainCreate', 'NvtxDomainCreate');

CREATE TABLE MPI_RANKS (globalTid INTEGER NOT NULL, rank INTEGER NOT NULL);
INSERT INTO MPI_RANKS VALUES ((4242 << 24) | 4242, 3);

CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (1000, 1500, 0, (4242 << 24) | 4242, 101, 1, 0, NULL),    -- launch K1
  (4000, 4400, 0, (4242 << 24) | 4242, 102, 1, 0, NULL),    -- launch K2
  (10000, 10800, 0, (4242 << 24) | 4242, 103, 2, 0, NULL),  -- graph launch K3, K4
  (13000, 13300, 0, (4242 << 24) | 4242, 104, 3, 0, NULL),  -- async copy M1 (pinned)
  (15000, 25000, 0, (4242 << 24) | 4242, 105, 4, 0, NULL),  -- sync copy M2 (pageable)
  (26000, 26200, 0, (4242 << 24) | 4242, 106, 5, 0, NULL),  -- memset S1
  (27000, 27400, 0, (4242 << 24) | 4242, 107, 1, 0, NULL),  -- launch K5 (NCCL)
  (27500, 40100, 0, (4242 << 24) | 4242, 108, 6, 0, NULL),  -- stream sync
  (41000, 41500, 0, (4242 << 24) | 4242, 109, 7, 0, NULL),  -- device sync
  (42000, 42100, 0, (4242 << 24) | 4242, 110, 3, 0, NULL),  -- async copy M3 (DtoH)
  (44000, 45000, 0, (4242 << 24) | 4250, 113, 8, 0, NULL),  -- event sync on the worker
  (800, 820, 0, (4242 << 24) | 4242, 100, 17, 0, NULL);     -- not a launch, copy or sync

CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL,
  blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, gridId INTEGER NOT NULL,
  graphNodeId INTEGER, graphId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (2000, 3000, 0, 1, NULL, 7, 101, 4242 << 24, 9, 10, 11, 0, 16, 1024, 1, 1, 128, 1, 1, 1,
   NULL, NULL),
  (5000, 9000, 0, 1, NULL, 7, 102, 4242 << 24, 12, 12, 12, 0, 122, 64, 8, 1, 256, 1, 1, 2,
   NULL, NULL),
  -- K3: graph node (graphNodeId set); K4: same graph launch, found by its correlation id only
  (11000, 12000, 0, 1, NULL, 7, 103, 4242 << 24, 12, 12, 12, 0, 122, 64, 8, 1, 256, 1, 1, 3,
   5, 1),
  (12100, 12500, 0, 1, NULL, 7, 103, 4242 << 24, 9, 10, 11, 0, 16, 1024, 1, 1, 128, 1, 1, 4,
   NULL, NULL),
  (28000, 40000, 0, 1, NULL, 13, 107, 4242 << 24, 13, 14, 14, 0, 96, 2, 1, 1, 512, 1, 1, 5,
   NULL, NULL);

CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
  srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES
  (13500, 14500, 0, 1, NULL, 7, 104, 4242 << 24, 1048576, 1, NULL, 1, 2, NULL, NULL, 0, 1,
   NULL, NULL, NULL),
  (16000, 24000, 0, 1, NULL, 7, 105, 4242 << 24, 4194304, 1, NULL, 0, 2, NULL, NULL, 0, 1,
   NULL, NULL, NULL),
  (42200, 42700, 0, 1, NULL, 7, 110, 4242 << 24, 2048, 2, NULL, 2, 1, 0, 1, NULL, NULL,
   NULL, NULL, NULL);

CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL,
  bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES
  (26500, 26800, 0, 1, NULL, 7, 106, 4242 << 24, 0, 65536, NULL, 2);

CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES
  (27500, 40100, 0, 1, NULL, 7, 108, 4242 << 24, 3, 0),   -- has its runtime call: dropped
  (43000, 43600, 0, 1, NULL, 7, 111, 4242 << 24, 1, 12),  -- no runtime call: kept
  (43700, 43800, 0, 1, NULL, 13, 112, 4242 << 24, 2, 13); -- stream wait: not a host sync

CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,
  int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
  floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, text, globalTid, endGlobalTid, textId,
  domainId) VALUES
  (50, NULL, 75, NULL, 'my_domain', (4242 << 24) | 4242, NULL, NULL, 1),
  (500, 42000, 59, NULL, NULL, (4242 << 24) | 4242, NULL, 15, 0),
  (900, 9500, 59, NULL, 'forward', (4242 << 24) | 4242, NULL, NULL, 0),
  (100, 400, 60, 1, 'data_load', (4242 << 24) | 4250, (4242 << 24) | 4250, NULL, 0),
  (600, NULL, 34, NULL, 'checkpoint', (4242 << 24) | 4242, NULL, NULL, 0),
  (42000, 46000, 59, NULL, 'ProfilerStep#1', (4242 << 24) | 4242, NULL, NULL, 0),
  (45500, NULL, 59, NULL, 'still_open', (4242 << 24) | 4242, NULL, NULL, 0),
  (47000, 46000, 59, NULL, 'clock_skewed', (4242 << 24) | 4242, NULL, NULL, 0);

-- @@export older
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES
  (1, 'cudaLaunchKernel_v7000'),
  (2, 'cudaGraphLaunch_v10000'),
  (3, 'cudaMemcpy_v3020'),
  (4, 'cudaStreamSynchronize_v3020'),
  (5, 'volta_sgemm_128x64_nn'),
  (6, 'ncclKernel_AllReduce_RING_LL_Sum_float'),
  (7, 'elementwise_kernel');

CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT NOT NULL, end INT NOT NULL,
  eventClass INT NOT NULL, globalTid INT NOT NULL, correlationId INT NOT NULL,
  nameId INT NOT NULL, returnValue INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (100, 300, 0, (4242 << 24) | 4242, 1, 1, 0),
  (1000, 1200, 0, (4242 << 24) | 4242, 2, 2, 0),
  (2000, 9000, 0, (4242 << 24) | 4242, 3, 3, 0),
  (9100, 9300, 0, (4242 << 24) | 4242, 5, 1, 0),
  (9500, 20000, 0, (4242 << 24) | 4242, 4, 4, 0);

CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT NOT NULL, end INT NOT NULL,
  deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL,
  correlationId INT NOT NULL, globalPid INT NOT NULL, shortName INT NOT NULL,
  launchType INT NOT NULL, registersPerThread INT NOT NULL, gridX INT NOT NULL,
  gridY INT NOT NULL, gridZ INT NOT NULL, blockX INT NOT NULL, blockY INT NOT NULL,
  blockZ INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (400, 2400, 0, 1, 7, 1, 4242 << 24, 5, 0, 122, 64, 8, 1, 256, 1, 1),
  (1300, 1800, 0, 1, 7, 2, 4242 << 24, 7, 0, 16, 1024, 1, 1, 128, 1, 1),
  (1850, 1950, 0, 1, 7, 2, 4242 << 24, 5, 0, 122, 64, 8, 1, 256, 1, 1),
  (9400, 19000, 0, 1, 21, 5, 4242 << 24, 6, 0, 96, 2, 1, 1, 512, 1, 1);

CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT NOT NULL, end INT NOT NULL,
  deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL,
  correlationId INT NOT NULL, globalPid INT NOT NULL, bytes INT NOT NULL,
  copyKind INT NOT NULL, deprecatedSrcId INT NOT NULL, srcKind INT NOT NULL,
  dstKind INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES
  (2500, 8500, 0, 1, 7, 3, 4242 << 24, 8388608, 1, 0, 0, 2);

CREATE TABLE NVTX_EVENTS (start INT NOT NULL, end INT, eventType INT NOT NULL, rangeId INT,
  category INT, color INT, text TEXT, globalTid INT, endGlobalTid INT, domainId INT);
INSERT INTO NVTX_EVENTS VALUES
  (50, 20500, 59, NULL, NULL, NULL, 'ProfilerStep#5', (4242 << 24) | 4242, NULL, 0),
  (60, NULL, 34, NULL, NULL, NULL, 'mark', (4242 << 24) | 4242, NULL, 0),
  (150, 9000, 59, NULL, NULL, NULL, 'train_body', (4242 << 24) | 4242, NULL, 0);

-- @@export multigpu
-- `nsys profile torchrun --nproc-per-node 2 ...`: two processes in one export, pid 100 (rank 0,
-- device 0) and pid 200 (rank 1, device 1). Each launches 500 1 us kernels with 1 us gaps
-- (every launch after the previous kernel ended: host-wait idle); device 1's kernels fall in
-- device 0's gaps, so the union of both devices is busy all the time while each GPU idles half
-- of it. Both processes use the same correlation ids (CUPTI numbers them per process).
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'ampere_sgemm_32x32_nn'),
  (3, 'cudaDeviceSynchronize_v3020'), (4, 'torchrun');
CREATE TABLE MPI_RANKS (globalTid INTEGER NOT NULL, rank INTEGER NOT NULL);
INSERT INTO MPI_RANKS VALUES ((100 << 24) | 100, 0), ((200 << 24) | 200, 1);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL,
  blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, gridId INTEGER NOT NULL,
  graphNodeId INTEGER, graphId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 499),
  p(pid, dev, offset) AS (VALUES (100, 0, 0), (200, 1, 1000))
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME
  SELECT 1000000 + 2000 * i + offset - 600, 1000000 + 2000 * i + offset - 200, 0,
    (pid << 24) | pid, 1000 + i, 1, 0, NULL FROM n, p;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 499),
  p(pid, dev, offset) AS (VALUES (100, 0, 0), (200, 1, 1000))
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL
  SELECT 1000000 + 2000 * i + offset, 1000000 + 2000 * i + offset + 1000, dev, 1, NULL, 7,
    1000 + i, pid << 24, 2, 2, 2, 0, 32, 64, 1, 1, 128, 1, 1, i, NULL, NULL FROM n, p;
-- A final device sync in each process (no GPU op: goes to the process's device), and an NVTX
-- range of the torchrun launcher (pid 50, no CUDA activity: not analysed).
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (2001000, 2001500, 0, (100 << 24) | 100, 5000, 3, 0, NULL),
  (2002000, 2002500, 0, (200 << 24) | 200, 5000, 3, 0, NULL);
INSERT INTO NVTX_EVENTS VALUES
  (900000, 2000000, 59, NULL, NULL, NULL, 'train', (100 << 24) | 100, NULL, NULL, 0),
  (900000, 2000000, 59, NULL, NULL, NULL, 'train', (200 << 24) | 200, NULL, NULL, 0),
  (0, 2100000, 59, NULL, NULL, NULL, 'launcher', (50 << 24) | 50, NULL, NULL, 0);

-- @@export graphs
-- `nsys profile --cuda-graph-trace=graph`: whole-graph executions in GRAPH_TRACE instead of
-- per-node kernels. 20 launches of graph 7 (1 ms each, 50 us apart) on device 0, pid 300.
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'cudaGraphLaunch_v10000');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER NOT NULL, end INTEGER,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, graphId INTEGER NOT NULL,
  graphExecId INTEGER NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19)
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME
  SELECT 1000000 + 1050000 * i - 30000, 1000000 + 1050000 * i - 20000, 0, (300 << 24) | 300,
    10 + i, 1, 0, NULL FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19)
INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE
  SELECT 1000000 + 1050000 * i, 2000000 + 1050000 * i, 0, 1, NULL, 14, 10 + i, 300 << 24, 7,
    1 FROM n;
-- One row without an end (skipped, warned; real exports declare end NOT NULL).
INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (30000000, NULL, 0, 1, NULL, 14, 99,
  300 << 24, 7, 1);

-- @@export steps
-- A host-bound training loop over 80 ms (nsys 2024.x columns, pid 400, device 0): 20
-- ProfilerStep#k ranges of 4 ms; in each, 2.75 ms of host work ("data_load"), a 4 MiB pinned
-- H2D copy (200 us), then 10 kernels of 60 us, each launched 100 us after the previous one
-- (after it ended: host-wait idle), and a device sync. The GPU is busy 0.8 ms of each 4 ms.
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'cudaMemcpyAsync_v3020'),
  (3, 'cudaDeviceSynchronize_v3020'), (4, 'ampere_sgemm_128x64_tn'),
  (5, 'void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>()');
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (1, 'CUDA_MEMCPY_KIND_HTOD', 'Host-to-Device');
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEM_KIND VALUES (1, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned'),
  (2, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', 'Device');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL,
  blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, gridId INTEGER NOT NULL,
  graphNodeId INTEGER, graphId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
  srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
-- Step k starts at s = 1 ms + 4 ms * k; correlation ids 100 * k + (0 copy, 1..10 launches, 11 sync).
WITH RECURSIVE k(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM k WHERE k < 19),
  s(k, s) AS (SELECT k, 1000000 + 4000000 * k FROM k)
INSERT INTO NVTX_EVENTS
  SELECT s, s + 4000000, 59, NULL, NULL, NULL, 'ProfilerStep#' || k, (400 << 24) | 400, NULL,
    NULL, 0 FROM s
  UNION ALL
  SELECT s, s + 2750000, 59, NULL, NULL, NULL, 'data_load', (400 << 24) | 400, NULL, NULL, 0
    FROM s;
WITH RECURSIVE k(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM k WHERE k < 19),
  s(k, s) AS (SELECT k, 1000000 + 4000000 * k FROM k)
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME
  SELECT s + 2750000, s + 2760000, 0, (400 << 24) | 400, 100 * k, 2, 0, NULL FROM s
  UNION ALL
  SELECT s + 3950000, s + 3990000, 0, (400 << 24) | 400, 100 * k + 11, 3, 0, NULL FROM s;
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY
  SELECT start + 10000, start + 210000, 0, 1, NULL, 7, correlationId, 400 << 24, 4194304, 1,
    NULL, 1, 2, NULL, NULL, 0, 1, NULL, NULL, NULL
  FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE nameId = 2;
WITH RECURSIVE k(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM k WHERE k < 19),
  j(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM j WHERE j < 9),
  l(k, j, t) AS (SELECT k, j, 1000000 + 4000000 * k + 3000000 + 100000 * j FROM k, j)
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME
  SELECT t, t + 10000, 0, (400 << 24) | 400, 100 * k + 1 + j, 1, 0, NULL FROM l;
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL
  SELECT start + 20000, start + 80000, 0, 1, NULL, 7, correlationId, 400 << 24,
    4 + correlationId % 2, 4 + correlationId % 2, NULL, 0, 64, 128, 1, 1, 256, 1, 1,
    correlationId, NULL, NULL
  FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE nameId = 1;

-- @@export nocuda
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'cudaMalloc_v3020');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT NOT NULL, end INT NOT NULL,
  eventClass INT NOT NULL, globalTid INT NOT NULL, correlationId INT NOT NULL,
  nameId INT NOT NULL, returnValue INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (100, 300, 0, (4242 << 24) | 4242, 1, 2, 0),
  (400, 410, 0, (4242 << 24) | 4242, 2, 1, 0),
  (420, 430, 0, (4242 << 24) | 4242, 3, 1, 0);
CREATE TABLE DIAGNOSTIC_EVENT (timestamp INT NOT NULL, timestampType INT NOT NULL,
  source INT NOT NULL, severity INT NOT NULL, text TEXT NOT NULL, globalPid INT);
INSERT INTO DIAGNOSTIC_EVENT VALUES
  (0, 0, 0, 1, 'Process 4242 was launched by the profiler', 4242 << 24),
  (500, 0, 0, 2, 'No CUDA events collected. Does the process use CUDA?', 4242 << 24);
