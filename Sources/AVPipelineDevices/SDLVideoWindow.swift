import AVPipeline
internal import CSDL2
internal import CSDL2Loader
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One resizable SDL2 window that shows pictures, with an event loop of its own.
///
/// SDL's video calls must all come from the thread that opened the window, and its event loop must
/// keep running while playback waits. On Linux (X11, Wayland) any one thread will do, so the window
/// lives on a detached thread of its own, blocked in SDL's event wait. macOS's window server takes
/// windows and events from the main thread only (Cocoa refuses them elsewhere), so there the window
/// is opened on the main thread and its loop runs there in short turns scheduled on the main queue,
/// never blocking it: the main actor (where an app's UI and a CLI's top level run) keeps running
/// between turns. Either way `show` hands the loop the next picture and wakes it with an SDL event; it uploads the planes into a streaming texture
/// (YUV 4:2:0 planar, NV12/NV21 and packed 4:2:2 directly; the player converts anything else
/// first), draws it letterboxed, turned and mirrored as the track says, and redraws it when the
/// window is resized or exposed. Keys and closing the window come out of `inputs`; f toggles full
/// screen here.
///
/// `@unchecked Sendable`: the SDL objects are touched only on the window thread; the mailbox is
/// locked; `inputs`' continuation is thread-safe.
final class SDLVideoWindow: PictureWindow, @unchecked Sendable {
    let inputs: AsyncStream<WindowInput>
    /// The video driver in use (x11, wayland, cocoa…).
    let driver: String
    private let continuation: AsyncStream<WindowInput>.Continuation
    private let mailbox = LockedState(Mailbox())
    private let finished = DispatchSemaphore(value: 0)
    private var joined = false
    #if os(macOS)
    private let loop: MainThreadLoop
    #endif

    /// The SDL texture formats that show pictures without conversion, by FFmpeg's pixel format.
    private static let textureFormats: [PixelFormat: UInt32] = {
        var formats: [PixelFormat: UInt32] = [.yuv420p: avp_sdl_pixelformat_iyuv(), .nv12: avp_sdl_pixelformat_nv12()]
        for (name, format) in [("yuvj420p", avp_sdl_pixelformat_iyuv()), ("nv21", avp_sdl_pixelformat_nv21()),
                               ("yuyv422", avp_sdl_pixelformat_yuy2()), ("uyvy422", avp_sdl_pixelformat_uyvy())] {
            if let pixelFormat = PixelFormat(name: name) { formats[pixelFormat] = format }
        }
        return formats
    }()

    /// Which SDL texture format shows pictures of `format` without conversion, if any.
    static func textureFormat(for format: PixelFormat) -> UInt32? { textureFormats[format] }

    /// Opens the window (shown black until the first picture) at the picture's display size.
    /// Throws `deviceUnavailable` (`.display`) when there is no display or SDL cannot open one.
    init(title: String, format: VideoFormat, fullscreen: Bool) throws(AVPipelineError) {
        #if os(Linux)
        let displays = ["DISPLAY", "WAYLAND_DISPLAY"].compactMap { (name: String) in getenv(name).map { String(cString: $0) } }
        guard displays.contains(where: { !$0.isEmpty }) else {
            throw .deviceUnavailable(.display, reason: "neither DISPLAY nor WAYLAND_DISPLAY is set; run under X11 or Wayland, or a virtual display such as Xvfb")
        }
        #endif
        guard avp_sdl_available() != 0 else { throw .deviceUnavailable(.display, reason: SDLSubsystems.lastError) }
        (inputs, continuation) = AsyncStream.makeStream(of: WindowInput.self, bufferingPolicy: .bufferingNewest(64))
        let opened = DispatchSemaphore(value: 0)
        let outcome = LockedState<Result<String, AVPipelineError>?>(nil)
        let size = PictureLayout.displaySize(of: format)
        let setup = WindowThread.Setup(title: title, width: size.width, height: size.height, fullscreen: fullscreen)
        let (mailbox, continuation, finished) = (self.mailbox, self.continuation, self.finished)
        #if os(macOS)
        let loop = MainThreadLoop(finished: finished, inputs: continuation)
        self.loop = loop
        loop.onMainThread {
            let thread = WindowThread(setup: setup, mailbox: mailbox, inputs: continuation)
            outcome.withLock { $0 = thread.open() }
            opened.signal()
            if case .success = outcome.withLock({ $0 }) { loop.start(thread) } else { loop.finish(thread) }
        }
        #else
        DetachedThread.spawn {
            let thread = WindowThread(setup: setup, mailbox: mailbox, inputs: continuation)
            outcome.withLock { $0 = thread.open() }
            opened.signal()
            if case .success = outcome.withLock({ $0 }) {
                while thread.turn(waitingMilliseconds: 100) {}
            }
            thread.close()
            continuation.finish()
            finished.signal()
        }
        #endif
        opened.wait()
        switch outcome.withLock({ $0 })! {
        case .success(let driver): self.driver = driver
        case .failure(let error):
            finished.wait()
            joined = true
            throw error
        }
    }

    deinit { close() }

    /// Shows `picture` as soon as the window thread gets to it (replacing one not yet shown).
    func show(_ picture: VideoFrame) {
        mailbox.withLock { $0.picture = OwnershipTransfer(picture) }
        Self.wake()
    }

    func toggleFullscreen() {
        mailbox.withLock { $0.toggleFullscreen = true }
        Self.wake()
    }

    /// Closes the window and waits for its thread to end; idempotent, from one owner.
    func close() {
        guard !joined else { return }
        joined = true
        mailbox.withLock { $0.closing = true }
        #if os(macOS)
        // On the main thread the loop's next turn cannot come while this waits: end it here.
        if loop.endHereIfOnMainThread() { return }
        #endif
        Self.wake()
        finished.wait()
    }

    /// Wakes the window thread's event wait (SDL_PushEvent is thread-safe).
    private static func wake() {
        var event = SDL_Event()
        event.type = avp_sdl_user_event()
        _ = SDL_PushEvent(&event)
    }
}

/// What the window thread is asked to do next.
struct Mailbox: Sendable {
    var picture: OwnershipTransfer<VideoFrame>?
    var toggleFullscreen = false
    var closing = false
}

/// The window's thread-confined half: the SDL window, renderer and texture, and the event loop.
final class WindowThread {
    struct Setup: Sendable {
        let title: String
        let width: Int, height: Int
        let fullscreen: Bool
    }

    private let setup: Setup
    private let mailbox: LockedState<Mailbox>
    private let inputs: AsyncStream<WindowInput>.Continuation
    private var window: OpaquePointer?
    private var renderer: OpaquePointer?
    private var texture: OpaquePointer?
    private var textureKey: (format: UInt32, width: Int, height: Int)?
    /// The stream facts of the picture in the texture (for redraws).
    private var shown: VideoFormat?
    /// Whether the texture is sampled nearest (drawn pixel for pixel) rather than filtered.
    private var samplesNearest = false
    /// The picture in the texture, kept to upload again when the sampling must change.
    private var lastPicture: VideoFrame?
    private var initialised = false

    init(setup: Setup, mailbox: LockedState<Mailbox>, inputs: AsyncStream<WindowInput>.Continuation) {
        self.setup = setup
        self.mailbox = mailbox
        self.inputs = inputs
    }

    /// Starts SDL's video subsystem and opens the window; the video driver's name on success.
    func open() -> Result<String, AVPipelineError> {
        #if os(Linux)
        // Only the drivers of the displays the environment names (SDL_VIDEODRIVER still wins): left
        // to itself, SDL falls back to its offscreen driver when DISPLAY names a display it cannot
        // open, and the picture goes to an invisible window without a word.
        let named = [("x11", "DISPLAY"), ("wayland", "WAYLAND_DISPLAY")].compactMap { driver, variable -> (String, String)? in
            guard let value = getenv(variable).map({ String(cString: $0) }), !value.isEmpty else { return nil }
            return (driver, "\(variable)=\(value)")
        }
        let drivers: String? = named.map(\.0).joined(separator: ",")
        let displays = " at " + named.map(\.1).joined(separator: ", ")
        #else
        let (drivers, displays): (String?, String) = (nil, "")
        #endif
        do {
            try SDLSubsystems.acquire(avp_sdl_init_video(), for: .display) {
                SDL_SetHint("SDL_RENDER_SCALE_QUALITY", "linear")
                SDL_SetHint("SDL_VIDEO_X11_NET_WM_BYPASS_COMPOSITOR", "0")
                if let drivers { SDL_SetHint("SDL_VIDEODRIVER", drivers) }
            }
        } catch {
            return .failure(.deviceUnavailable(.display, reason: "none could be opened\(displays) (\(SDLSubsystems.lastError)); is its server running? Or run under a virtual display such as Xvfb"))
        }
        initialised = true
        let position = Int32(avp_sdl_windowpos_centered())
        window = SDL_CreateWindow(setup.title, position, position, Int32(setup.width), Int32(setup.height),
                                  avp_sdl_window_flags(setup.fullscreen ? 1 : 0))
        guard let window else {
            return .failure(.deviceUnavailable(.display, reason: "the window could not be opened (\(SDLSubsystems.lastError))"))
        }
        // As ffplay: a hardware renderer synchronised with the display where there is one.
        renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_ACCELERATED.rawValue | SDL_RENDERER_PRESENTVSYNC.rawValue)
            ?? SDL_CreateRenderer(window, -1, 0)
        guard renderer != nil else {
            return .failure(.deviceUnavailable(.display, reason: "no renderer for the window (\(SDLSubsystems.lastError))"))
        }
        // Created hidden: an OpenGL renderer makes SDL destroy and recreate an X11 window, which
        // if shown would flash, and could be found by a window manager or tool just before it dies.
        SDL_ShowWindow(window)
        draw()
        return .success(SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? "unknown")
    }

    /// One turn of the event loop: waits up to `waitingMilliseconds` for an SDL event and handles
    /// it, then whatever the mailbox asks; false once closing.
    func turn(waitingMilliseconds: Int32) -> Bool {
        var event = SDL_Event()
        if SDL_WaitEventTimeout(&event, waitingMilliseconds) != 0 { handle(event) }
        let (picture, toggle, closing) = mailbox.withLock { box in
            defer { box.picture = nil; box.toggleFullscreen = false }
            return (box.picture, box.toggleFullscreen, box.closing)
        }
        if closing { return false }
        if toggle { toggleFullscreen() }
        if let picture { present(picture.value) }
        return true
    }

    func close() {
        if let texture { SDL_DestroyTexture(texture) }
        if let renderer { SDL_DestroyRenderer(renderer) }
        if let window { SDL_DestroyWindow(window) }
        (texture, renderer, window) = (nil, nil, nil)
        lastPicture = nil
        if initialised { SDLSubsystems.release(avp_sdl_init_video()) }
    }

    private func handle(_ event: SDL_Event) {
        switch event.type {
        case avp_sdl_quit_event():
            inputs.yield(.quit)
        case avp_sdl_window_event():
            if event.window.event == avp_sdl_window_close() { inputs.yield(.quit) } else { draw() }
        case avp_sdl_keydown_event():
            let key = event.key.keysym.sym
            switch key {
            case 0x20, 0x70: inputs.yield(.togglePause)                 // space, p
            case 0x71, avp_sdl_key_escape(): inputs.yield(.quit)         // q, Esc
            case avp_sdl_key_left(): inputs.yield(.seek(by: -10))
            case avp_sdl_key_right(): inputs.yield(.seek(by: 10))
            case avp_sdl_key_down(): inputs.yield(.seek(by: -60))
            case avp_sdl_key_up(): inputs.yield(.seek(by: 60))
            case 0x39, 0x2F: inputs.yield(.volume(by: -0.1))             // 9, /
            case 0x30, 0x2A: inputs.yield(.volume(by: 0.1))              // 0, *
            case 0x6D: inputs.yield(.toggleMute)                         // m
            case 0x66: toggleFullscreen()                                // f
            default: break
            }
        default:
            break
        }
    }

    private func toggleFullscreen() {
        guard let window else { return }
        let isFullscreen = SDL_GetWindowFlags(window) & avp_sdl_window_fullscreen_desktop() != 0
        _ = SDL_SetWindowFullscreen(window, isFullscreen ? 0 : avp_sdl_window_fullscreen_desktop())
        draw()
    }

    /// Uploads the picture's planes into the texture and draws it.
    private func present(_ picture: VideoFrame) {
        guard let renderer, let sdlFormat = SDLVideoWindow.textureFormat(for: picture.format.pixelFormat) else { return }
        let format = picture.format
        if textureKey == nil || textureKey! != (sdlFormat, format.width, format.height) {
            if let texture { SDL_DestroyTexture(texture) }
            texture = SDL_CreateTexture(renderer, sdlFormat, avp_sdl_texture_streaming(), Int32(format.width), Int32(format.height))
            textureKey = texture == nil ? nil : (sdlFormat, format.width, format.height)
            samplesNearest = false  // a new texture filters (the hint's "linear")
        }
        guard let texture else { return }
        upload(picture, into: texture, nearest: layout(of: format).isPixelForPixel(format: format))
        (shown, lastPicture) = (format, picture)
        draw()
    }

    /// Sets how the texture is sampled, then uploads the picture's planes into it.
    private func upload(_ picture: VideoFrame, into texture: OpaquePointer, nearest: Bool) {
        // Before the upload: SDL 2's OpenGL renderer binds the planes' textures to set their
        // filter without telling its state cache, which would then draw the wrong plane; an
        // upload resets that cache.
        if nearest != samplesNearest,
           SDL_SetTextureScaleMode(texture, nearest ? SDL_ScaleModeNearest : SDL_ScaleModeLinear) == 0 {
            samplesNearest = nearest
        }
        let planes = picture.planes
        SDL_SetYUVConversionMode(SDL_YUV_CONVERSION_MODE(UInt32(avp_sdl_yuv_mode(planes.isFullRange ? 1 : 0, planes.isBT709 ? 1 : 0))))
        let (data, pitch) = (planes.data, planes.lineSizes)
        switch textureKey?.format {
        case avp_sdl_pixelformat_iyuv():
            _ = SDL_UpdateYUVTexture(texture, nil, data[0], pitch[0], data[1], pitch[1], data[2], pitch[2])
        case avp_sdl_pixelformat_nv12(), avp_sdl_pixelformat_nv21():
            _ = SDL_UpdateNVTexture(texture, nil, data[0], pitch[0], data[1], pitch[1])
        default:
            _ = SDL_UpdateTexture(texture, nil, data[0], pitch[0])
        }
    }

    /// Where a picture of `format` goes in the window as it is now.
    private func layout(of format: VideoFormat) -> PictureLayout {
        var width: Int32 = 0, height: Int32 = 0
        if let renderer { _ = SDL_GetRendererOutputSize(renderer, &width, &height) }
        return PictureLayout(format: format, windowWidth: Int(width), windowHeight: Int(height))
    }

    /// Clears the window and draws the texture letterboxed, turned and mirrored.
    private func draw() {
        guard let renderer else { return }
        _ = SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        _ = SDL_RenderClear(renderer)
        if let texture, let shown {
            let layout = layout(of: shown)
            // Drawn pixel for pixel, filtering gives the same picture as nearest sampling, but a
            // software renderer (Mesa's llvmpipe: Xvfb, VMs, remote X) spends ~40 % more CPU on it.
            let nearest = layout.isPixelForPixel(format: shown)
            if nearest != samplesNearest, let lastPicture { upload(lastPicture, into: texture, nearest: nearest) }
            var target = SDL_Rect(x: Int32(layout.drawBox.x), y: Int32(layout.drawBox.y),
                                  w: Int32(layout.drawBox.width), h: Int32(layout.drawBox.height))
            _ = SDL_RenderCopyEx(renderer, texture, nil, &target,
                                 PictureLayout.sdlAngle(rotation: shown.rotation, mirrored: shown.isMirrored), nil,
                                 SDL_RendererFlip(UInt32(avp_sdl_flip(shown.isMirrored ? 1 : 0))))
        }
        SDL_RenderPresent(renderer)
    }
}

#if os(macOS)
/// The window's loop on macOS: opened on the main thread and turned there every 10 ms from the
/// main queue (a turn only polls, so the main thread is never held), because AppKit takes windows
/// and their events from the main thread only.
///
/// `@unchecked Sendable`: `thread` is touched on the main thread only.
private final class MainThreadLoop: @unchecked Sendable {
    private var thread: WindowThread?
    private let finished: DispatchSemaphore
    private let inputs: AsyncStream<WindowInput>.Continuation

    init(finished: DispatchSemaphore, inputs: AsyncStream<WindowInput>.Continuation) {
        self.finished = finished
        self.inputs = inputs
    }

    /// Runs `body` on the main thread: here if this is it, else queued there.
    func onMainThread(_ body: @escaping @Sendable () -> Void) {
        if pthread_main_np() != 0 { body() } else { DispatchQueue.main.async(execute: body) }
    }

    /// Starts the turns (main thread).
    func start(_ thread: WindowThread) {
        self.thread = thread
        scheduleTurn()
    }

    /// Closes the window and tells `close()` (main thread); the turns stop.
    func finish(_ thread: WindowThread) {
        self.thread = nil
        thread.close()
        inputs.finish()
        finished.signal()
    }

    /// From `close()`: ends the loop now if called on the main thread; false elsewhere.
    func endHereIfOnMainThread() -> Bool {
        guard pthread_main_np() != 0 else { return false }
        if let thread { finish(thread) }
        finished.wait()
        return true
    }

    private func scheduleTurn() {
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(10)) { [self] in
            guard let thread else { return }
            if thread.turn(waitingMilliseconds: 0) { scheduleTurn() } else { finish(thread) }
        }
    }
}
#endif
