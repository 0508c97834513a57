#include "session/directory_names.h"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>

namespace braid {

int ForEachName(int dir_fd, const std::function<void(std::string_view)>& each) {
  const int copy = ::dup(dir_fd);
  if (copy < 0) return errno;
  DIR* d = ::fdopendir(copy);  // takes `copy`; closedir closes it
  if (d == nullptr) {
    const int err = errno;
    ::close(copy);
    return err;
  }
  // The copy shares the caller's offset: from the start, whatever read it before.
  ::rewinddir(d);
  errno = 0;
  while (const dirent* ent = ::readdir(d)) {
    const std::string_view name(ent->d_name);
    if (name != "." && name != "..") each(name);
    errno = 0;  // `each` may have set it; only readdir's own failure counts
  }
  const int err = errno;
  ::closedir(d);
  return err;
}

}  // namespace braid
