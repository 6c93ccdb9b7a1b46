package sysmem

const maxrssPerMiB = 1024 // ru_maxrss is in KiB
