extension TimeZoneNames {
    /// The zones CLDR names as Windows defaults: the "main" zone of each region, preferred when
    /// several IANA zones share the same rules (a VTIMEZONE matching Berlin's rules is
    /// Europe/Berlin, not Arctic/Longyearbyen).
    public static let preferredZones: [String] = Array(Set(WindowsZones.defaultZone.values)).sorted()
}
