import AVPipeline
internal import CSDL2
internal import CSDL2Loader

/// SDL2's subsystems (audio, video), each started while at least one user needs it. Starting and
/// stopping are serialised here (SDL's initialisation is not thread-safe, and the window starts
/// video on its own thread while audio starts elsewhere), and once no subsystem is in use
/// `SDL_Quit` frees what SDL keeps for the whole process (hints, its D-Bus connection).
enum SDLSubsystems {
    private static let users = LockedState<[UInt32: Int]>([:])

    /// Starts `subsystem` unless it runs already; `prepare` runs first (hints, driver quirks).
    /// A failure is `deviceUnavailable` of `device`, the kind the caller wanted the subsystem for.
    static func acquire(_ subsystem: UInt32, for device: DeviceKind, prepare: () -> Void = {}) throws(AVPipelineError) {
        try users.withLock { (counts: inout [UInt32: Int]) throws(AVPipelineError) in
            if counts[subsystem, default: 0] == 0 {
                guard avp_sdl_available() != 0 else { throw .deviceUnavailable(device, reason: lastError) }
                // SDL must not take over SIGINT/SIGTERM: the CLI turns them into cancellation.
                SDL_SetHint("SDL_NO_SIGNAL_HANDLERS", "1")
                prepare()
                guard SDL_InitSubSystem(subsystem) == 0 else { throw .deviceUnavailable(device, reason: lastError) }
            }
            counts[subsystem, default: 0] += 1
        }
    }

    static func release(_ subsystem: UInt32) {
        users.withLock { counts in
            counts[subsystem, default: 1] -= 1
            guard counts[subsystem] == 0 else { return }
            SDL_QuitSubSystem(subsystem)
            counts[subsystem] = nil
            if counts.isEmpty { SDL_Quit() }
        }
    }

    static var lastError: String { String(cString: SDL_GetError()) }
}
