#ifndef AVP_SDL_LOADER_H
#define AVP_SDL_LOADER_H

/// Whether libSDL2 could be loaded (it is loaded on the first call of any SDL function avpipe uses).
int avp_sdl_available(void);

#endif
