#ifndef AVP_ALLOCATOR_TUNING_H
#define AVP_ALLOCATOR_TUNING_H

/// Fixes glibc's mmap threshold at 256 KiB (a no-op on other C libraries). Swift imports neither
/// `mallopt` nor its `M_*` macros. Called by the avpipe executable only: the application tunes
/// its allocator, a library must not.
void avp_fix_mmap_threshold(void);

#endif
