// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef TACTUS_CI2C_SHIM_H
#define TACTUS_CI2C_SHIM_H

#include <linux/i2c.h>       /* struct i2c_msg, I2C_FUNC_* */
#include <linux/i2c-dev.h>   /* I2C_SLAVE, I2C_FUNCS, I2C_RDWR */
#include <i2c/smbus.h>       /* i2c_smbus_* (libi2c, i2c-tools >= 4.0) */
#include <sys/ioctl.h>

/* glibc's ioctl() is variadic; typed wrappers keep the argument types exact. */
static inline int tactus_i2c_set_address(int fd, int address) {
    return ioctl(fd, I2C_SLAVE, (unsigned long)address);
}
static inline int tactus_i2c_functionality(int fd, unsigned long *functions) {
    return ioctl(fd, I2C_FUNCS, functions);
}
static inline int tactus_i2c_rdwr(int fd, struct i2c_msg *messages, unsigned int count) {
    struct i2c_rdwr_ioctl_data data = { messages, count };
    return ioctl(fd, I2C_RDWR, &data);
}

#endif
