import { Button, Dialog, Drawer } from '@acme/widgets';
import { useStore, Toolbar } from '@acme/widgets';
import { fromA, fromB, fromC } from 'chained';

export const parts = [Button, Dialog, Drawer, useStore, Toolbar, fromA, fromB, fromC];
