#ifndef AVP_FFMPEG_LOADER_H
#define AVP_FFMPEG_LOADER_H

/// 1 when this build loads the FFmpeg libraries on first use (x86_64 Linux), 0 when it links them.
int avp_ffmpeg_loads_lazily(void);

#endif
