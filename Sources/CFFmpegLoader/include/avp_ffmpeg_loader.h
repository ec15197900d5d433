#ifndef AVP_FFMPEG_LOADER_H
#define AVP_FFMPEG_LOADER_H

/// 1 when this build loads the FFmpeg libraries on first use (x86_64 Linux), 0 when it links them.
int avp_ffmpeg_loads_lazily(void);

/// Registers libavdevice's capture devices (x11grab, v4l2…) with libavformat; 0, or -1 when
/// libavdevice cannot be loaded. libavdevice alone is loaded here, on a device's first use, not
/// with the other libraries: its dependencies (X11, ALSA, PulseAudio, SDL…) cost every command
/// ~100M instructions of loading.
int avp_ffmpeg_register_devices(void);

#endif
