// The SDL2 functions avpipe calls, defined here as trampolines that load libSDL2 on first use.
//
// Why: linking SDL2 drags ~24 libraries (X11, Wayland, PulseAudio, D-Bus…) into every avpipe run,
// although only `play` needs an audio device and a window; encode/demux/mux would pay for them in startup time and
// memory. Loading on demand keeps them out, and a machine without SDL2 gets a typed "no audio
// device" error from `play` instead of a program that cannot start.
//
// SDL.h is deliberately not included: these definitions must not clash with its declarations (which
// Swift sees through the CSDL2 module). The prototypes below match SDL2's ABI: Uint32 →
// uint32_t, SDL_bool/int → int, struct pointers → void *.

#include "avp_sdl_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static void *library;
static char load_error[512] = "libSDL2 was not loaded";
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    static const char *const names[] = {
#ifdef __APPLE__
        "libSDL2-2.0.0.dylib", "/opt/homebrew/lib/libSDL2-2.0.0.dylib", "/usr/local/lib/libSDL2-2.0.0.dylib",
#else
        "libSDL2-2.0.so.0", "libSDL2.so",
#endif
    };
    for (unsigned i = 0; i < sizeof names / sizeof names[0] && !library; i++) {
        library = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
    }
    if (!library) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "the SDL2 library could not be loaded (%s)", why ? why : "not found");
    }
}

static void *resolve(const char *name) {
    pthread_once(&load_once, load);
    return library ? dlsym(library, name) : NULL;
}

int avp_sdl_available(void) {
    pthread_once(&load_once, load);
    return library != NULL;
}

#define TRAMPOLINE(ret, name, params, args, fallback) \
    ret name params { \
        static ret (*fn) params; \
        if (!fn) fn = (ret (*) params)resolve(#name); \
        if (!fn) return fallback; \
        return fn args; \
    }

#define VOID_TRAMPOLINE(name, params, args) \
    void name params { \
        static void (*fn) params; \
        if (!fn) fn = (void (*) params)resolve(#name); \
        if (fn) fn args; \
    }

TRAMPOLINE(int, SDL_InitSubSystem, (uint32_t flags), (flags), -1)
VOID_TRAMPOLINE(SDL_QuitSubSystem, (uint32_t flags), (flags))
VOID_TRAMPOLINE(SDL_Quit, (void), ())
TRAMPOLINE(int, SDL_SetHint, (const char *name, const char *value), (name, value), 0)
TRAMPOLINE(const char *, SDL_GetCurrentAudioDriver, (void), (), NULL)
TRAMPOLINE(int, SDL_GetNumAudioDevices, (int iscapture), (iscapture), 0)
TRAMPOLINE(const char *, SDL_GetAudioDeviceName, (int index, int iscapture), (index, iscapture), NULL)
TRAMPOLINE(uint32_t, SDL_OpenAudioDevice,
           (const char *device, int iscapture, const void *desired, void *obtained, int allowed_changes),
           (device, iscapture, desired, obtained, allowed_changes), 0)
TRAMPOLINE(int, SDL_GetAudioDeviceSpec, (int index, int iscapture, void *spec), (index, iscapture, spec), -1)
VOID_TRAMPOLINE(SDL_PauseAudioDevice, (uint32_t dev, int pause_on), (dev, pause_on))
VOID_TRAMPOLINE(SDL_CloseAudioDevice, (uint32_t dev), (dev))

// Video: one window, its renderer and a streaming texture (see SDLVideoWindow).
TRAMPOLINE(const char *, SDL_GetCurrentVideoDriver, (void), (), NULL)
TRAMPOLINE(void *, SDL_CreateWindow, (const char *title, int x, int y, int w, int h, uint32_t flags),
           (title, x, y, w, h, flags), NULL)
VOID_TRAMPOLINE(SDL_DestroyWindow, (void *window), (window))
VOID_TRAMPOLINE(SDL_ShowWindow, (void *window), (window))
TRAMPOLINE(int, SDL_SetWindowFullscreen, (void *window, uint32_t flags), (window, flags), -1)
TRAMPOLINE(uint32_t, SDL_GetWindowFlags, (void *window), (window), 0)
TRAMPOLINE(void *, SDL_CreateRenderer, (void *window, int index, uint32_t flags), (window, index, flags), NULL)
VOID_TRAMPOLINE(SDL_DestroyRenderer, (void *renderer), (renderer))
TRAMPOLINE(int, SDL_GetRendererOutputSize, (void *renderer, int *w, int *h), (renderer, w, h), -1)
TRAMPOLINE(int, SDL_SetRenderDrawColor, (void *renderer, uint8_t r, uint8_t g, uint8_t b, uint8_t a),
           (renderer, r, g, b, a), -1)
TRAMPOLINE(int, SDL_RenderClear, (void *renderer), (renderer), -1)
TRAMPOLINE(int, SDL_RenderCopyEx,
           (void *renderer, void *texture, const void *src, const void *dst, double angle, const void *center, int flip),
           (renderer, texture, src, dst, angle, center, flip), -1)
VOID_TRAMPOLINE(SDL_RenderPresent, (void *renderer), (renderer))
TRAMPOLINE(void *, SDL_CreateTexture, (void *renderer, uint32_t format, int access, int w, int h),
           (renderer, format, access, w, h), NULL)
VOID_TRAMPOLINE(SDL_DestroyTexture, (void *texture), (texture))
TRAMPOLINE(int, SDL_SetTextureScaleMode, (void *texture, int mode), (texture, mode), -1)
TRAMPOLINE(int, SDL_UpdateTexture, (void *texture, const void *rect, const void *pixels, int pitch),
           (texture, rect, pixels, pitch), -1)
TRAMPOLINE(int, SDL_UpdateYUVTexture,
           (void *texture, const void *rect, const uint8_t *y, int ypitch, const uint8_t *u, int upitch,
            const uint8_t *v, int vpitch),
           (texture, rect, y, ypitch, u, upitch, v, vpitch), -1)
TRAMPOLINE(int, SDL_UpdateNVTexture,
           (void *texture, const void *rect, const uint8_t *y, int ypitch, const uint8_t *uv, int uvpitch),
           (texture, rect, y, ypitch, uv, uvpitch), -1)
VOID_TRAMPOLINE(SDL_SetYUVConversionMode, (int mode), (mode))
TRAMPOLINE(int, SDL_WaitEventTimeout, (void *event, int timeout), (event, timeout), 0)
TRAMPOLINE(int, SDL_PushEvent, (void *event), (event), -1)
TRAMPOLINE(int, SDL_ShowCursor, (int toggle), (toggle), -1)

// SDL_GetError must work even when the library is missing: it then explains that.
const char *SDL_GetError(void) {
    static const char *(*fn)(void);
    if (!fn) fn = (const char *(*)(void))resolve("SDL_GetError");
    return fn ? fn() : load_error;
}
