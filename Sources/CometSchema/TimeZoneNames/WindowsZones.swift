import Foundation

/// Windows time zone IDs, as Outlook and Exchange write them in TZID, mapped to IANA zones.
///
/// The data is CLDR's `windowsZones` table (`common/supplemental/windowsZones.xml`), restated here as our own
/// table so the importer does not depend on a platform ICU exposing it. Territory "001" is the zone CLDR picks
/// when nothing narrows the choice to one country, which is all a TZID tells us.
enum WindowsZones {
    /// Every current Windows zone ID → its territory-001 IANA zone, sorted by key.
    ///
    /// CLDR keeps older tzdata spellings (`Asia/Calcutta`, `Europe/Kiev`, `America/Godthab`); tzdata still ships
    /// them as links, so they resolve everywhere and are kept as CLDR writes them.
    static let defaultZone: [String: String] = [
        "AUS Central Standard Time": "Australia/Darwin",
        "AUS Eastern Standard Time": "Australia/Sydney",
        "Afghanistan Standard Time": "Asia/Kabul",
        "Alaskan Standard Time": "America/Anchorage",
        "Aleutian Standard Time": "America/Adak",
        "Altai Standard Time": "Asia/Barnaul",
        "Arab Standard Time": "Asia/Riyadh",
        "Arabian Standard Time": "Asia/Dubai",
        "Arabic Standard Time": "Asia/Baghdad",
        "Argentina Standard Time": "America/Buenos_Aires",
        "Astrakhan Standard Time": "Europe/Astrakhan",
        "Atlantic Standard Time": "America/Halifax",
        "Aus Central W. Standard Time": "Australia/Eucla",
        "Azerbaijan Standard Time": "Asia/Baku",
        "Azores Standard Time": "Atlantic/Azores",
        "Bahia Standard Time": "America/Bahia",
        "Bangladesh Standard Time": "Asia/Dhaka",
        "Belarus Standard Time": "Europe/Minsk",
        "Bougainville Standard Time": "Pacific/Bougainville",
        "Canada Central Standard Time": "America/Regina",
        "Cape Verde Standard Time": "Atlantic/Cape_Verde",
        "Caucasus Standard Time": "Asia/Yerevan",
        "Cen. Australia Standard Time": "Australia/Adelaide",
        "Central America Standard Time": "America/Guatemala",
        "Central Asia Standard Time": "Asia/Bishkek",
        "Central Brazilian Standard Time": "America/Cuiaba",
        "Central Europe Standard Time": "Europe/Budapest",
        "Central European Standard Time": "Europe/Warsaw",
        "Central Pacific Standard Time": "Pacific/Guadalcanal",
        "Central Standard Time": "America/Chicago",
        "Central Standard Time (Mexico)": "America/Mexico_City",
        "Chatham Islands Standard Time": "Pacific/Chatham",
        "China Standard Time": "Asia/Shanghai",
        "Cuba Standard Time": "America/Havana",
        "Dateline Standard Time": "Etc/GMT+12",
        "E. Africa Standard Time": "Africa/Nairobi",
        "E. Australia Standard Time": "Australia/Brisbane",
        "E. Europe Standard Time": "Europe/Chisinau",
        "E. South America Standard Time": "America/Sao_Paulo",
        "Easter Island Standard Time": "Pacific/Easter",
        "Eastern Standard Time": "America/New_York",
        "Eastern Standard Time (Mexico)": "America/Cancun",
        "Egypt Standard Time": "Africa/Cairo",
        "Ekaterinburg Standard Time": "Asia/Yekaterinburg",
        "FLE Standard Time": "Europe/Kiev",
        "Fiji Standard Time": "Pacific/Fiji",
        "GMT Standard Time": "Europe/London",
        "GTB Standard Time": "Europe/Bucharest",
        "Georgian Standard Time": "Asia/Tbilisi",
        "Greenland Standard Time": "America/Godthab",
        "Greenwich Standard Time": "Atlantic/Reykjavik",
        "Haiti Standard Time": "America/Port-au-Prince",
        "Hawaiian Standard Time": "Pacific/Honolulu",
        "India Standard Time": "Asia/Calcutta",
        "Iran Standard Time": "Asia/Tehran",
        "Israel Standard Time": "Asia/Jerusalem",
        "Jordan Standard Time": "Asia/Amman",
        "Kaliningrad Standard Time": "Europe/Kaliningrad",
        "Korea Standard Time": "Asia/Seoul",
        "Libya Standard Time": "Africa/Tripoli",
        "Line Islands Standard Time": "Pacific/Kiritimati",
        "Lord Howe Standard Time": "Australia/Lord_Howe",
        "Magadan Standard Time": "Asia/Magadan",
        "Magallanes Standard Time": "America/Punta_Arenas",
        "Marquesas Standard Time": "Pacific/Marquesas",
        "Mauritius Standard Time": "Indian/Mauritius",
        "Middle East Standard Time": "Asia/Beirut",
        "Montevideo Standard Time": "America/Montevideo",
        "Morocco Standard Time": "Africa/Casablanca",
        "Mountain Standard Time": "America/Denver",
        "Mountain Standard Time (Mexico)": "America/Mazatlan",
        "Myanmar Standard Time": "Asia/Rangoon",
        "N. Central Asia Standard Time": "Asia/Novosibirsk",
        "Namibia Standard Time": "Africa/Windhoek",
        "Nepal Standard Time": "Asia/Katmandu",
        "New Zealand Standard Time": "Pacific/Auckland",
        "Newfoundland Standard Time": "America/St_Johns",
        "Norfolk Standard Time": "Pacific/Norfolk",
        "North Asia East Standard Time": "Asia/Irkutsk",
        "North Asia Standard Time": "Asia/Krasnoyarsk",
        "North Korea Standard Time": "Asia/Pyongyang",
        "Omsk Standard Time": "Asia/Omsk",
        "Pacific SA Standard Time": "America/Santiago",
        "Pacific Standard Time": "America/Los_Angeles",
        "Pacific Standard Time (Mexico)": "America/Tijuana",
        "Pakistan Standard Time": "Asia/Karachi",
        "Paraguay Standard Time": "America/Asuncion",
        "Qyzylorda Standard Time": "Asia/Qyzylorda",
        "Romance Standard Time": "Europe/Paris",
        "Russia Time Zone 10": "Asia/Srednekolymsk",
        "Russia Time Zone 11": "Asia/Kamchatka",
        "Russia Time Zone 3": "Europe/Samara",
        "Russian Standard Time": "Europe/Moscow",
        "SA Eastern Standard Time": "America/Cayenne",
        "SA Pacific Standard Time": "America/Bogota",
        "SA Western Standard Time": "America/La_Paz",
        "SE Asia Standard Time": "Asia/Bangkok",
        "Saint Pierre Standard Time": "America/Miquelon",
        "Sakhalin Standard Time": "Asia/Sakhalin",
        "Samoa Standard Time": "Pacific/Apia",
        "Sao Tome Standard Time": "Africa/Sao_Tome",
        "Saratov Standard Time": "Europe/Saratov",
        "Singapore Standard Time": "Asia/Singapore",
        "South Africa Standard Time": "Africa/Johannesburg",
        "South Sudan Standard Time": "Africa/Juba",
        "Sri Lanka Standard Time": "Asia/Colombo",
        "Sudan Standard Time": "Africa/Khartoum",
        "Syria Standard Time": "Asia/Damascus",
        "Taipei Standard Time": "Asia/Taipei",
        "Tasmania Standard Time": "Australia/Hobart",
        "Tocantins Standard Time": "America/Araguaina",
        "Tokyo Standard Time": "Asia/Tokyo",
        "Tomsk Standard Time": "Asia/Tomsk",
        "Tonga Standard Time": "Pacific/Tongatapu",
        "Transbaikal Standard Time": "Asia/Chita",
        "Turkey Standard Time": "Europe/Istanbul",
        "Turks And Caicos Standard Time": "America/Grand_Turk",
        "US Eastern Standard Time": "America/Indianapolis",
        "US Mountain Standard Time": "America/Phoenix",
        "UTC": "Etc/UTC",
        "UTC+12": "Etc/GMT-12",
        "UTC+13": "Etc/GMT-13",
        "UTC-02": "Etc/GMT+2",
        "UTC-08": "Etc/GMT+8",
        "UTC-09": "Etc/GMT+9",
        "UTC-11": "Etc/GMT+11",
        "Ulaanbaatar Standard Time": "Asia/Ulaanbaatar",
        "Venezuela Standard Time": "America/Caracas",
        "Vladivostok Standard Time": "Asia/Vladivostok",
        "Volgograd Standard Time": "Europe/Volgograd",
        "W. Australia Standard Time": "Australia/Perth",
        "W. Central Africa Standard Time": "Africa/Lagos",
        "W. Europe Standard Time": "Europe/Berlin",
        "W. Mongolia Standard Time": "Asia/Hovd",
        "West Asia Standard Time": "Asia/Tashkent",
        "West Bank Standard Time": "Asia/Hebron",
        "West Pacific Standard Time": "Pacific/Port_Moresby",
        "Yakutsk Standard Time": "Asia/Yakutsk",
        "Yukon Standard Time": "America/Whitehorse",
    ]

    /// Windows IDs Microsoft has since retired that old Outlook files still carry (CLDR 1.8 mapping).
    ///
    /// "Mexico Standard Time 2" is left out on purpose: it covered Chihuahua and Mazatlan together, whose offsets
    /// have differed since 2022, so the file's own VTIMEZONE is a better guide than any single zone.
    static let retiredZone: [String: String] = [
        "Armenian Standard Time": "Asia/Yerevan",
        "Kamchatka Standard Time": "Asia/Kamchatka",
        "Mexico Standard Time": "America/Mexico_City",
        "Mid-Atlantic Standard Time": "Etc/GMT+2",
    ]

    /// Outlook display names → Windows ID, in offset order.
    ///
    /// These are the display strings CLDR records beside each Windows zone. Lookups compare the offset
    /// numerically and the label case-insensitively, so the older `(GMT+01:00) …` and `(UTC) …` spellings of the
    /// same zones match too; rewordings that do not match fall back to the city list (see `TimeZoneNames`).
    static let displayNames: [String: String] = [
        "(UTC-12:00) International Date Line West": "Dateline Standard Time",
        "(UTC-11:00) Coordinated Universal Time-11": "UTC-11",
        "(UTC-10:00) Aleutian Islands": "Aleutian Standard Time",
        "(UTC-10:00) Hawaii": "Hawaiian Standard Time",
        "(UTC-09:30) Marquesas Islands": "Marquesas Standard Time",
        "(UTC-09:00) Alaska": "Alaskan Standard Time",
        "(UTC-09:00) Coordinated Universal Time-09": "UTC-09",
        "(UTC-08:00) Baja California": "Pacific Standard Time (Mexico)",
        "(UTC-08:00) Coordinated Universal Time-08": "UTC-08",
        "(UTC-08:00) Pacific Time (US & Canada)": "Pacific Standard Time",
        "(UTC-07:00) Arizona": "US Mountain Standard Time",
        "(UTC-07:00) Chihuahua, La Paz, Mazatlan": "Mountain Standard Time (Mexico)",
        "(UTC-07:00) Mountain Time (US & Canada)": "Mountain Standard Time",
        "(UTC-07:00) Yukon": "Yukon Standard Time",
        "(UTC-06:00) Central America": "Central America Standard Time",
        "(UTC-06:00) Central Time (US & Canada)": "Central Standard Time",
        "(UTC-06:00) Easter Island": "Easter Island Standard Time",
        "(UTC-06:00) Guadalajara, Mexico City, Monterrey": "Central Standard Time (Mexico)",
        "(UTC-06:00) Saskatchewan": "Canada Central Standard Time",
        "(UTC-05:00) Bogota, Lima, Quito, Rio Branco": "SA Pacific Standard Time",
        "(UTC-05:00) Chetumal": "Eastern Standard Time (Mexico)",
        "(UTC-05:00) Eastern Time (US & Canada)": "Eastern Standard Time",
        "(UTC-05:00) Haiti": "Haiti Standard Time",
        "(UTC-05:00) Havana": "Cuba Standard Time",
        "(UTC-05:00) Indiana (East)": "US Eastern Standard Time",
        "(UTC-05:00) Turks and Caicos": "Turks And Caicos Standard Time",
        "(UTC-04:00) Asuncion": "Paraguay Standard Time",
        "(UTC-04:00) Atlantic Time (Canada)": "Atlantic Standard Time",
        "(UTC-04:00) Caracas": "Venezuela Standard Time",
        "(UTC-04:00) Cuiaba": "Central Brazilian Standard Time",
        "(UTC-04:00) Georgetown, La Paz, Manaus, San Juan": "SA Western Standard Time",
        "(UTC-04:00) Santiago": "Pacific SA Standard Time",
        "(UTC-03:30) Newfoundland": "Newfoundland Standard Time",
        "(UTC-03:00) Araguaina": "Tocantins Standard Time",
        "(UTC-03:00) Brasilia": "E. South America Standard Time",
        "(UTC-03:00) Cayenne, Fortaleza": "SA Eastern Standard Time",
        "(UTC-03:00) City of Buenos Aires": "Argentina Standard Time",
        "(UTC-03:00) Greenland": "Greenland Standard Time",
        "(UTC-03:00) Montevideo": "Montevideo Standard Time",
        "(UTC-03:00) Punta Arenas": "Magallanes Standard Time",
        "(UTC-03:00) Saint Pierre and Miquelon": "Saint Pierre Standard Time",
        "(UTC-03:00) Salvador": "Bahia Standard Time",
        "(UTC-02:00) Coordinated Universal Time-02": "UTC-02",
        "(UTC-01:00) Azores": "Azores Standard Time",
        "(UTC-01:00) Cabo Verde Is.": "Cape Verde Standard Time",
        "(UTC) Coordinated Universal Time": "UTC",
        "(UTC+00:00) Dublin, Edinburgh, Lisbon, London": "GMT Standard Time",
        "(UTC+00:00) Monrovia, Reykjavik": "Greenwich Standard Time",
        "(UTC+00:00) Sao Tome": "Sao Tome Standard Time",
        "(UTC+01:00) Casablanca": "Morocco Standard Time",
        "(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna": "W. Europe Standard Time",
        "(UTC+01:00) Belgrade, Bratislava, Budapest, Ljubljana, Prague": "Central Europe Standard Time",
        "(UTC+01:00) Brussels, Copenhagen, Madrid, Paris": "Romance Standard Time",
        "(UTC+01:00) Sarajevo, Skopje, Warsaw, Zagreb": "Central European Standard Time",
        "(UTC+01:00) West Central Africa": "W. Central Africa Standard Time",
        "(UTC+02:00) Amman": "Jordan Standard Time",
        "(UTC+02:00) Athens, Bucharest": "GTB Standard Time",
        "(UTC+02:00) Beirut": "Middle East Standard Time",
        "(UTC+02:00) Cairo": "Egypt Standard Time",
        "(UTC+02:00) Chisinau": "E. Europe Standard Time",
        "(UTC+02:00) Damascus": "Syria Standard Time",
        "(UTC+02:00) Gaza, Hebron": "West Bank Standard Time",
        "(UTC+02:00) Harare, Pretoria": "South Africa Standard Time",
        "(UTC+02:00) Helsinki, Kyiv, Riga, Sofia, Tallinn, Vilnius": "FLE Standard Time",
        "(UTC+02:00) Jerusalem": "Israel Standard Time",
        "(UTC+02:00) Juba": "South Sudan Standard Time",
        "(UTC+02:00) Kaliningrad": "Kaliningrad Standard Time",
        "(UTC+02:00) Khartoum": "Sudan Standard Time",
        "(UTC+02:00) Tripoli": "Libya Standard Time",
        "(UTC+02:00) Windhoek": "Namibia Standard Time",
        "(UTC+03:00) Baghdad": "Arabic Standard Time",
        "(UTC+03:00) Istanbul": "Turkey Standard Time",
        "(UTC+03:00) Kuwait, Riyadh": "Arab Standard Time",
        "(UTC+03:00) Minsk": "Belarus Standard Time",
        "(UTC+03:00) Moscow, St. Petersburg": "Russian Standard Time",
        "(UTC+03:00) Nairobi": "E. Africa Standard Time",
        "(UTC+03:30) Tehran": "Iran Standard Time",
        "(UTC+04:00) Abu Dhabi, Muscat": "Arabian Standard Time",
        "(UTC+04:00) Astrakhan, Ulyanovsk": "Astrakhan Standard Time",
        "(UTC+04:00) Baku": "Azerbaijan Standard Time",
        "(UTC+04:00) Izhevsk, Samara": "Russia Time Zone 3",
        "(UTC+04:00) Port Louis": "Mauritius Standard Time",
        "(UTC+04:00) Saratov": "Saratov Standard Time",
        "(UTC+04:00) Tbilisi": "Georgian Standard Time",
        "(UTC+04:00) Volgograd": "Volgograd Standard Time",
        "(UTC+04:00) Yerevan": "Caucasus Standard Time",
        "(UTC+04:30) Kabul": "Afghanistan Standard Time",
        "(UTC+05:00) Ashgabat, Tashkent": "West Asia Standard Time",
        "(UTC+05:00) Ekaterinburg": "Ekaterinburg Standard Time",
        "(UTC+05:00) Islamabad, Karachi": "Pakistan Standard Time",
        "(UTC+05:00) Qyzylorda": "Qyzylorda Standard Time",
        "(UTC+05:30) Chennai, Kolkata, Mumbai, New Delhi": "India Standard Time",
        "(UTC+05:30) Sri Jayawardenepura": "Sri Lanka Standard Time",
        "(UTC+05:45) Kathmandu": "Nepal Standard Time",
        "(UTC+06:00) Astana": "Central Asia Standard Time",
        "(UTC+06:00) Dhaka": "Bangladesh Standard Time",
        "(UTC+06:00) Omsk": "Omsk Standard Time",
        "(UTC+06:30) Yangon (Rangoon)": "Myanmar Standard Time",
        "(UTC+07:00) Bangkok, Hanoi, Jakarta": "SE Asia Standard Time",
        "(UTC+07:00) Barnaul, Gorno-Altaysk": "Altai Standard Time",
        "(UTC+07:00) Hovd": "W. Mongolia Standard Time",
        "(UTC+07:00) Krasnoyarsk": "North Asia Standard Time",
        "(UTC+07:00) Novosibirsk": "N. Central Asia Standard Time",
        "(UTC+07:00) Tomsk": "Tomsk Standard Time",
        "(UTC+08:00) Beijing, Chongqing, Hong Kong, Urumqi": "China Standard Time",
        "(UTC+08:00) Irkutsk": "North Asia East Standard Time",
        "(UTC+08:00) Kuala Lumpur, Singapore": "Singapore Standard Time",
        "(UTC+08:00) Perth": "W. Australia Standard Time",
        "(UTC+08:00) Taipei": "Taipei Standard Time",
        "(UTC+08:00) Ulaanbaatar": "Ulaanbaatar Standard Time",
        "(UTC+08:45) Eucla": "Aus Central W. Standard Time",
        "(UTC+09:00) Chita": "Transbaikal Standard Time",
        "(UTC+09:00) Osaka, Sapporo, Tokyo": "Tokyo Standard Time",
        "(UTC+09:00) Pyongyang": "North Korea Standard Time",
        "(UTC+09:00) Seoul": "Korea Standard Time",
        "(UTC+09:00) Yakutsk": "Yakutsk Standard Time",
        "(UTC+09:30) Adelaide": "Cen. Australia Standard Time",
        "(UTC+09:30) Darwin": "AUS Central Standard Time",
        "(UTC+10:00) Brisbane": "E. Australia Standard Time",
        "(UTC+10:00) Canberra, Melbourne, Sydney": "AUS Eastern Standard Time",
        "(UTC+10:00) Guam, Port Moresby": "West Pacific Standard Time",
        "(UTC+10:00) Hobart": "Tasmania Standard Time",
        "(UTC+10:00) Vladivostok": "Vladivostok Standard Time",
        "(UTC+10:30) Lord Howe Island": "Lord Howe Standard Time",
        "(UTC+11:00) Bougainville Island": "Bougainville Standard Time",
        "(UTC+11:00) Chokurdakh": "Russia Time Zone 10",
        "(UTC+11:00) Magadan": "Magadan Standard Time",
        "(UTC+11:00) Norfolk Island": "Norfolk Standard Time",
        "(UTC+11:00) Sakhalin": "Sakhalin Standard Time",
        "(UTC+11:00) Solomon Is., New Caledonia": "Central Pacific Standard Time",
        "(UTC+12:00) Anadyr, Petropavlovsk-Kamchatsky": "Russia Time Zone 11",
        "(UTC+12:00) Auckland, Wellington": "New Zealand Standard Time",
        "(UTC+12:00) Coordinated Universal Time+12": "UTC+12",
        "(UTC+12:00) Fiji": "Fiji Standard Time",
        "(UTC+12:45) Chatham Islands": "Chatham Islands Standard Time",
        "(UTC+13:00) Coordinated Universal Time+13": "UTC+13",
        "(UTC+13:00) Nuku'alofa": "Tonga Standard Time",
        "(UTC+13:00) Samoa": "Samoa Standard Time",
        "(UTC+14:00) Kiritimati Island": "Line Islands Standard Time",
    ]
}

/// Normalizes the TZID values real calendar files carry to IANA zone names.
public enum TimeZoneNames {
    /// The IANA zone name for a TZID, or nil when no rule recognizes it (the importer then uses the file's
    /// VTIMEZONE, or reports the line).
    ///
    /// Rules, in order:
    /// 1. UTC spellings (`UTC`, `GMT`, `Z`, `Etc/UTC`, `Etc/GMT`, `Universal`, `Zulu`, …) → `UTC`, one name for one
    ///    zone. Fixed offsets such as `Etc/GMT+5` are real tzdata zones and stay as they are.
    /// 2. Names Foundation and the system tzdata both know, as is: aliases like `US/Eastern` are valid tzdata.
    /// 3. Windows zone IDs (`W. Europe Standard Time`), case-insensitively, via CLDR's territory-001 zone.
    /// 4. Outlook display names. `(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna` is W. Europe
    ///    Standard Time and so `Europe/Berlin`, CLDR's default for it, rather than the first city: every zone in
    ///    that list keeps the same rules today, and agreeing with the Windows-ID rule means one Outlook zone never
    ///    imports as two. Display names not in the table map through the first listed city that names a zone with
    ///    the stated standard offset.
    /// 5. Names behind a generator's prefix (`/mozilla.org/20050126_1/`, `posix/`, `custom_`, or any leading
    ///    `/…/…/` path), when what follows is recognized by rules 1–3.
    public static func ianaIdentifier(for tzid: String) -> String? {
        // An import asks for the same few TZIDs once a line; the answer needs tzdata lookups
        // and file checks (3% of an import before it was kept).
        if let known = resolved.withLock({ $0[tzid] }) { return known }
        let name = trimmed(tzid)
        let answer = name.isEmpty ? nil : resolveName(name) ?? resolveDisplayName(name) ?? resolvePrefixedName(name)
        resolved.withLock { cache in if cache.count < 10_000 { cache[tzid] = answer } }
        return answer
    }

    private static let resolved = LockedCache<[String: String?]>([:])

    // MARK: Rules 1–3

    /// Zero-offset names from tzdata's `etcetera` and `backward` files, lowercased.
    private static let utcAliases: Set<String> = [
        "utc", "gmt", "z", "zulu", "universal", "uct", "greenwich", "gmt0", "gmt+0", "gmt-0",
        "etc/utc", "etc/gmt", "etc/uct", "etc/universal", "etc/zulu", "etc/greenwich",
        "etc/gmt0", "etc/gmt+0", "etc/gmt-0",
    ]

    /// Windows IDs, current and retired, keyed by `folded(_:)`.
    private static let windowsZonesByFoldedName: [String: String] = {
        var lookup: [String: String] = [:]
        for (name, zone) in WindowsZones.retiredZone { lookup[folded(name)] = zone }
        for (name, zone) in WindowsZones.defaultZone { lookup[folded(name)] = zone }
        return lookup
    }()

    private static func resolveName(_ name: String) -> String? {
        if utcAliases.contains(name.lowercased()) { return "UTC" }
        if isTZDataZone(name) { return name }
        return windowsZone(named: name)
    }

    private static func windowsZone(named name: String) -> String? {
        guard let zone = windowsZonesByFoldedName[folded(name)] else { return nil }
        return utcAliases.contains(zone.lowercased()) ? "UTC" : zone
    }

    private static let zoneinfoDirectory = "/usr/share/zoneinfo"
    private static let hasZoneinfo = FileManager.default.fileExists(atPath: zoneinfoDirectory)

    /// True when both Foundation and the system tzdata know `name` as a zone.
    ///
    /// Foundation alone is not enough: ICU accepts custom IDs (`GMT+5`) that other tzdata users reject. Where
    /// no zoneinfo tree is installed at all (minimal containers), Foundation's own data is the only authority.
    static func isTZDataZone(_ name: String) -> Bool {
        guard isPlausibleZoneName(name), TimeZone(identifier: name) != nil else { return false }
        guard hasZoneinfo else { return true }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: zoneinfoDirectory + "/" + name, isDirectory: &isDirectory)
        return exists && !isDirectory.boolValue
    }

    /// tzdata's own spelling rules: ASCII letters, digits, `_`, `-`, `+`, and `/` between non-empty parts.
    /// This also keeps arbitrary input from reaching the file system as a path (no `.`, no leading `/`).
    private static func isPlausibleZoneName(_ name: String) -> Bool {
        guard name.count <= 64, let first = name.first, first.isASCII, first.isLetter else { return false }
        guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-+/".contains($0)) }) else { return false }
        return !name.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty)
    }

    // MARK: Rule 4

    private struct DisplayName {
        /// Seconds east of UTC, as the parenthesized prefix states it.
        let offset: Int
        /// The text after the prefix, folded.
        let label: String

        var key: String { "\(offset) \(label)" }
    }

    private static let windowsNamesByDisplayKey: [String: String] = {
        var lookup: [String: String] = [:]
        for (display, windowsName) in WindowsZones.displayNames {
            guard let parsed = parseDisplayName(display) else { continue }
            lookup[parsed.key] = windowsName
        }
        return lookup
    }()

    /// Zone names by their last component, lowercased: `amsterdam` → `Europe/Amsterdam`.
    private static let zonesByCity: [String: [String]] = {
        var lookup: [String: [String]] = [:]
        for zone in TimeZone.knownTimeZoneIdentifiers.sorted() {
            guard let city = zone.split(separator: "/").last, zone.contains("/") else { continue }
            lookup[city.lowercased(), default: []].append(zone)
        }
        return lookup
    }()

    private static func resolveDisplayName(_ name: String) -> String? {
        guard let display = parseDisplayName(name) else { return nil }
        if let windowsName = windowsNamesByDisplayKey[display.key] {
            return windowsZone(named: windowsName)
        }
        return zoneForListedCity(in: display)
    }

    /// Windows versions reword their display names, so one missing from the table is matched by its cities:
    /// the first listed city that names a zone (`Amsterdam` → `Europe/Amsterdam`) whose current standard offset
    /// is the stated one. The offset check keeps `(UTC-07:00) La Paz, Mazatlan` from landing in Bolivia.
    private static func zoneForListedCity(in display: DisplayName) -> String? {
        let now = Date()
        for listed in display.label.split(separator: ",") {
            guard let candidates = zonesByCity[cityKey(listed)] else { continue }
            for zone in candidates where standardOffset(of: zone, at: now) == display.offset && isTZDataZone(zone) {
                return zone
            }
        }
        return nil
    }

    /// `yangon (rangoon)` → `yangon`, `solomon is.` → `solomon_is`, `port moresby` → `port_moresby`.
    private static func cityKey(_ listed: Substring) -> String {
        var city = listed
        if let open = city.firstIndex(of: "(") { city = city[..<open] }
        let words = city.split(whereSeparator: { $0.isWhitespace || $0 == "." })
        return words.joined(separator: "_")
    }

    private static func standardOffset(of zone: String, at date: Date) -> Int? {
        guard let timeZone = TimeZone(identifier: zone) else { return nil }
        return timeZone.secondsFromGMT(for: date) - Int(timeZone.daylightSavingTimeOffset(for: date))
    }

    /// Splits `(UTC+01:00) Amsterdam, …`, `(GMT-05:00) …` or `(UTC) …` into offset and folded label.
    private static func parseDisplayName(_ text: String) -> DisplayName? {
        guard text.first == "(", let close = text.firstIndex(of: ")") else { return nil }
        let prefix = text[text.index(after: text.startIndex)..<close]
        guard let offset = parseOffset(prefix) else { return nil }
        let label = folded(text[text.index(after: close)...])
        return label.isEmpty ? nil : DisplayName(offset: offset, label: label)
    }

    /// `UTC`, `GMT`, `UTC+01:00`, `GMT-3`, `UTC+05:45` → seconds east of UTC; nil for anything else.
    private static func parseOffset(_ text: Substring) -> Int? {
        let upper = text.uppercased().filter { !$0.isWhitespace }
        guard upper.hasPrefix("UTC") || upper.hasPrefix("GMT") else { return nil }
        let signed = upper.dropFirst(3)
        guard let signCharacter = signed.first else { return 0 }
        let sign: Int
        switch signCharacter {
        case "+": sign = 1
        case "-", "\u{2212}": sign = -1
        default: return nil
        }
        let parts = signed.dropFirst().split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count),
              parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let hours = Int(parts[0]), hours <= 14 else { return nil }
        let minutes = parts.count == 2 ? Int(parts[1]) ?? 60 : 0
        guard minutes < 60 else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }

    // MARK: Rule 5

    /// Prefixes seen from calendar generators (libical, Mozilla, Citadel, tzurl.org, Bedework) and from
    /// zoneinfo paths, longest first where one extends another.
    private static let generatorPrefixes = [
        "/freeassociation.sourceforge.net/Tzfile/",
        "/freeassociation.sourceforge.net/",
        "/mozilla.org/20050126_1/",
        "/mozilla.org/20070129_1/",
        "/citadel.org/20190914_1/",
        "/softwarestudio.org/Olson_20011030_5/",
        "/tzurl.org/20160831/",
        "/bedework.org/",
        "posix/",
        "right/",
        "custom_",
    ]

    private static func resolvePrefixedName(_ name: String) -> String? {
        for prefix in generatorPrefixes where name.prefix(prefix.count).lowercased() == prefix.lowercased() {
            if let zone = resolveName(trimmed(name.dropFirst(prefix.count))) { return zone }
        }
        // Any other leading path (`/vendor/version/Europe/Berlin`): tzdata names have at most three parts,
        // so try the last three, two, then one.
        guard name.hasPrefix("/") else { return nil }
        let parts = name.split(separator: "/")
        for count in stride(from: min(3, parts.count), through: 1, by: -1) {
            if let zone = resolveName(parts.suffix(count).joined(separator: "/")) { return zone }
        }
        return nil
    }

    // MARK: Text

    /// Trims whitespace and one pair of surrounding double quotes (`TZID="W. Europe Standard Time"`).
    private static func trimmed(_ text: some StringProtocol) -> String {
        var value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if value.count >= 2, value.first == "\"", value.last == "\"" {
            value = String(value.dropFirst().dropLast()).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return value
    }

    /// Lowercased with runs of whitespace collapsed, for case- and spacing-insensitive lookups.
    private static func folded(_ text: some StringProtocol) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ").lowercased()
    }
}
