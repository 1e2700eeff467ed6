/// Exit codes from sysexits(3), so scripts can tell a typo from bad data from a missing file.
enum ExitCode: Int32, Error {
    case success = 0
    /// `converse`: a script did not go as written (like a test runner).
    case scriptFailed = 1
    case usage = 64
    case dataError = 65
    case noInput = 66
    /// A service it needs is not there: no sound server or device for `chat --voice` (EX_UNAVAILABLE).
    case unavailable = 69
    case internalError = 70
    case ioError = 74
    /// A bad config file (EX_CONFIG).
    case config = 78
}
