// The C library of the platform, for the few POSIX calls the library makes (stat, link, rename…).
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#elseif canImport(Darwin)
@_exported import Darwin
#endif

/// The text of the current `errno`.
func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
