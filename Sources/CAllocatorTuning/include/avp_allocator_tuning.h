#ifndef AVP_ALLOCATOR_TUNING_H
#define AVP_ALLOCATOR_TUNING_H

/// Fixes glibc's mmap threshold at 256 KiB (a no-op on other C libraries). Swift imports neither
/// `mallopt` nor its `M_*` macros. Called by the avpipe executable only: the application tunes
/// its allocator, a library must not.
void avp_fix_mmap_threshold(void);

/// Raises the thresholds (mmap 4 MiB, trim 8 MiB) so that a buffer of about a megabyte freed and
/// grown again stays in the heap: libavformat's hls muxer does that once per segment, which under
/// the 256 KiB threshold maps, faults in and unmaps fresh pages each time (a page fault per 4 KiB
/// of output). Called once the inputs are open and indexed, whose large arrays stay mapped.
void avp_keep_segment_buffers(void);

/// Raises the thresholds (mmap 32 MiB, glibc's most; trim 64 MiB) for live pictures: each captured
/// screen picture (3.5 MiB at 720p) and its conversion are allocated and freed once a picture, which
/// under the 256 KiB threshold maps and faults in fresh pages 30 times a second (1.4 s more system
/// time than ffmpeg per 20 s of 720p). In the heap the freed buffers are reused.
void avp_keep_picture_buffers(void);

#endif
