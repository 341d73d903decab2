// jemalloc's build-time options for the dralloc binary (read once at
// startup; MALLOC_CONF in the environment still overrides them).
//
// thp:always backs jemalloc's memory with transparent huge pages where the
// kernel allows it (THP "madvise" mode, Debian's default): a what-if run of
// 5,000 pods then takes about 2,400 page faults instead of 37,000, each a
// kernel entry that zeroes a 4 KiB page. metadata_thp does the same for
// jemalloc's own bookkeeping.
extern "C" {
// NOLINTNEXTLINE: the name and type are jemalloc's interface.
const char* malloc_conf = "thp:always,metadata_thp:auto";
}
