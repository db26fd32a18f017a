# tst_h5native_mk.py DIR: netCDF-4 files for tst_h5native.sh that exercise
# the native metadata reader's harder structures: dense link storage (a
# fractal heap with indirect blocks, a multi-level v2 B-tree), dense
# attribute storage, object-header continuation chunks (attributes added
# after the data), big-endian and filtered variables, vlen strings,
# unlimited dimensions, many groups.  Written by the system's netCDF4 module.
import sys
import numpy as np
import netCDF4

d = sys.argv[1]
f = netCDF4.Dataset(d + '/native_dense.nc', 'w')
f.createDimension('n', 4)
f.createDimension('t', None)
for i in range(30):
    f.setncattr('gatt%02d' % i, i * 1.5)
f.setncattr('strs', ['a', 'bb', 'ccc'])
f.setncattr_string('s1', 'hello')
for v in range(600):
    x = f.createVariable('var_%05d' % v, 'f4', ('n',))
    x.units = 'm s-1'
    x.long_name = 'long name %d' % v
    x.setncattr('scale', 1.0 + v)
    x.vr = np.array([-v, v], 'f4')
    x.idx = np.int32(v)
y = f.createVariable('many', 'i2', ('t', 'n'), zlib=True, shuffle=True, fletcher32=True,
                     chunksizes=(4, 2), fill_value=-7, endian='big')
for i in range(25):
    y.setncattr('a%02d' % i, np.arange(i + 1, dtype='i8'))
y[0:3, :] = np.arange(12).reshape(3, 4)
s = f.createVariable('sv', str, ('n',))
s[0] = 'xyz'
g = f.createGroup('g')
for i in range(40):
    gg = g.createGroup('sub%02d' % i)
    gg.createDimension('k', i + 1)
    gg.createVariable('v', 'u8', ('k', 'n'))
f.close()

# attributes added after the data: continuation chunks
f = netCDF4.Dataset(d + '/native_later.nc', 'w')
f.createDimension('x', 3)
v = f.createVariable('v', 'i4', ('x',))
v[:] = [1, 2, 3]
f.close()
f = netCDF4.Dataset(d + '/native_later.nc', 'a')
v = f.variables['v']
for i in range(6):
    v.setncattr('late%d' % i, 'text number %d' % i)
f.setncattr('glate', np.arange(5, dtype='f8'))
f.createVariable('w', 'u2', ('x',), fill_value=9)
f.close()
