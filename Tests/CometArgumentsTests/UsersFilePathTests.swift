import Testing
import CometArguments

/// Where `cometcal user` and `cometcald` find the CalDAV password file: one rule for both.
@Suite("SettingsFile.usersFilePath")
struct UsersFilePathTests {
    let environment = ["XDG_CONFIG_HOME": "/home/ada/.config", "HOME": "/home/ada"]

    @Test("--users wins; else the users key, relative to the config file's folder or absolute; else users beside the config file")
    func precedence() {
        #expect(SettingsFile.usersFilePath(flag: "/srv/users", configured: "other", configPath: "/etc/c/config", environment: environment) == "/srv/users")
        #expect(SettingsFile.usersFilePath(flag: nil, configured: "caldav/users", configPath: "/etc/c/config", environment: environment) == "/etc/c/caldav/users")
        #expect(SettingsFile.usersFilePath(flag: nil, configured: "/var/lib/users", configPath: "/etc/c/config", environment: environment) == "/var/lib/users")
        #expect(SettingsFile.usersFilePath(flag: nil, configured: nil, configPath: nil, environment: environment) == "/home/ada/.config/cometcal/users")
        #expect(SettingsFile.usersFilePath(flag: nil, configured: nil, configPath: nil, environment: ["COMETCAL_CONFIG": "/etc/c/config"]) == "/etc/c/users")
    }
}
